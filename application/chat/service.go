// Package chat is the agent runtime: per chat turn it assembles a bot into
// an eino ReAct agent, runs it over the conversation and streams what
// happens.
package chat

// Service runs chats.
type Service struct{}
