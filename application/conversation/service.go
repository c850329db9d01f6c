// Package conversation holds the use cases of conversations and messages.
package conversation

// Service runs the conversation and message use cases.
type Service struct{}
