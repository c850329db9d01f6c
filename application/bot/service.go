// Package bot holds the use cases of bots and their variables: drafts,
// publishing, versions, and the keyword-memory values end users have.
package bot

// Service runs the bot use cases.
type Service struct{}
