package chat

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// checkFiles refuses messages naming a file_id that is not a file of the
// workspace (unknown, or another workspace's: both read the same), or an
// image file_url the egress policy refuses, before anything is stored.
// Without a file service ids are not checked; without a URL checker URLs
// are not.
func (s *Service) checkFiles(ctx context.Context, at string, workspaceID int64, msgs []InputMessage) error {
	for i, m := range msgs {
		parts, _ := contentParts(m.ContentType, m.Content)
		for j, p := range parts {
			field := fmt.Sprintf("%s[%d].content", at, i)
			if err := s.checkImageURL(ctx, p); err != nil {
				return errs.Invalid(field, "item %d: file_url %q cannot be sent to the model: %v", j, p.FileURL, err)
			}
			if p.FileID == "" || p.Type == "text" || s.d.Files == nil {
				continue
			}
			if err := s.checkFile(ctx, workspaceID, p.FileID); err != nil {
				return fileError(field, j, p.FileID, err)
			}
		}
	}
	return nil
}

// checkImageURL applies the egress policy to the URL of an image part,
// which a vision model's provider fetches: a refused destination or a
// URL that is not http(s) is an error saying why. A name that does not
// resolve here is let through: it leads nowhere inside this network.
func (s *Service) checkImageURL(ctx context.Context, p contentPart) error {
	if p.Type != "image" || p.FileURL == "" || s.d.URLs == nil {
		return nil
	}
	err := s.d.URLs.CheckURL(ctx, p.FileURL)
	if errors.Is(err, errs.ErrForbidden) || errors.Is(err, errs.ErrInvalid) {
		return err
	}
	return nil
}

func (s *Service) checkFile(ctx context.Context, workspaceID int64, fileID string) error {
	id, err := strconv.ParseInt(fileID, 10, 64)
	if err != nil || id <= 0 {
		return errs.ErrNotFound
	}
	_, err = s.d.Files.Of(ctx, workspaceID, id)
	return err
}

func fileError(field string, item int, fileID string, err error) error {
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Invalid(field, "item %d: file_id %q is not a file of this bot's workspace; upload it with POST /v1/files/upload first", item, fileID)
	}
	return fmt.Errorf("chat: check file %s: %w", fileID, err)
}

// modelInput is toModel with the files the user's messages name: for a
// vision model their images become image parts (a stored image as a data
// URL of its bytes, a file_url as given); other files, and every file for
// a model without vision, are named as text with the file's name.
func (s *Service) modelInput(ctx context.Context, workspaceID int64, vision bool, msgs []conversation.Message) []*schema.Message {
	out := make([]*schema.Message, 0, len(msgs))
	for _, m := range msgs {
		parts, ok := contentParts(m.ContentType, m.Content)
		if !ok || m.Role != conversation.RoleUser || s.d.Files == nil {
			if msg := modelMessage(m); msg != nil {
				out = append(out, msg)
			}
			continue
		}
		out = append(out, s.userMessage(ctx, workspaceID, vision, parts))
	}
	return out
}

// userMessage turns the parts of a user's message into the model's
// message: plain text when no image part is left, parts otherwise.
func (s *Service) userMessage(ctx context.Context, workspaceID int64, vision bool, parts []contentPart) *schema.Message {
	out := make([]schema.MessageInputPart, 0, len(parts))
	texts := make([]string, 0, len(parts))
	images := 0
	for _, p := range parts {
		if img, ok := s.imagePart(ctx, workspaceID, vision, p); ok {
			out = append(out, img)
			images++
			continue
		}
		text := partText(p, s.fileName(ctx, workspaceID, p))
		texts = append(texts, text)
		out = append(out, schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: text})
	}
	if images == 0 {
		return schema.UserMessage(strings.Join(texts, "\n"))
	}
	return &schema.Message{Role: schema.User, UserInputMultiContent: out}
}

// imagePart returns an image part of the message for a vision model:
// false for other parts, for an image URL that is not http(s), and for a
// file that is no image or cannot be read (it is then named as text).
func (s *Service) imagePart(ctx context.Context, workspaceID int64, vision bool, p contentPart) (schema.MessageInputPart, bool) {
	if !vision || p.Type != "image" {
		return schema.MessageInputPart{}, false
	}
	if p.FileURL != "" {
		if !strings.HasPrefix(p.FileURL, "https://") && !strings.HasPrefix(p.FileURL, "http://") {
			return schema.MessageInputPart{}, false
		}
		if err := s.checkImageURL(ctx, p); err != nil { // a stored message never checked: named as text
			return schema.MessageInputPart{}, false
		}
		url := p.FileURL
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
			Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}}, true
	}
	id, err := strconv.ParseInt(p.FileID, 10, 64)
	if err != nil {
		return schema.MessageInputPart{}, false
	}
	f, data, err := s.d.Files.Content(ctx, workspaceID, id)
	if err != nil {
		if !errors.Is(err, errs.ErrNotFound) {
			s.d.Log.WarnContext(ctx, "chat: read an image for the model", "file_id", id, "err", err)
		}
		return schema.MessageInputPart{}, false
	}
	if !f.IsImage() {
		return schema.MessageInputPart{}, false
	}
	b64 := base64.StdEncoding.EncodeToString(data)
	return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL,
		Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &b64, MIMEType: f.MimeType}}}, true
}

// fileName returns the stored name of the file a part names, or "".
func (s *Service) fileName(ctx context.Context, workspaceID int64, p contentPart) string {
	if p.FileID == "" || p.Type == "text" {
		return ""
	}
	id, err := strconv.ParseInt(p.FileID, 10, 64)
	if err != nil {
		return ""
	}
	f, err := s.d.Files.Of(ctx, workspaceID, id)
	if err != nil {
		return ""
	}
	return f.Name + " (" + f.MimeType + ")"
}
