package fakellm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The server checks a multi-part content array as OpenAI does: every part
// has a known type, text parts carry text, image parts an image_url whose
// url is an http(s) URL or a data URL of an image in valid base64; models
// named by WithTextOnlyModels refuse image parts. The image URLs of a
// message are recorded in Message.Images.

// Image is an image part of a request's message.
type Image struct {
	URL      string // as sent: an http(s) URL or a data: URL
	MimeType string // a data URL's media type
	Data     []byte // a data URL's decoded bytes
}

// WithTextOnlyModels makes the server refuse image parts in requests for
// the named models, as OpenAI refuses them for models without vision.
func WithTextOnlyModels(ids ...string) Option {
	return func(c *config) { c.textOnly = append(c.textOnly, ids...) }
}

type wirePart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text"` // nil: no text at all
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail"`
	} `json:"image_url"`
}

// parts returns the message's content parts; nil for string content.
func (m wireMessage) parts() []wirePart {
	var parts []wirePart
	if len(m.Content) == 0 || m.Content[0] != '[' || json.Unmarshal(m.Content, &parts) != nil {
		return nil
	}
	return parts
}

// images returns the message's image parts, decoded.
func (m wireMessage) images() []Image {
	var out []Image
	for _, p := range m.parts() {
		if p.Type == "image_url" && p.ImageURL != nil {
			img, _ := decodeImageURL(p.ImageURL.URL)
			out = append(out, img)
		}
	}
	return out
}

// checkParts returns the reason OpenAI would refuse the content parts of
// messages[i] for model, or "".
func checkParts(i int, m wireMessage, textOnly bool) string {
	for j, p := range m.parts() {
		at := fmt.Sprintf("messages.[%d].content.[%d]", i, j)
		switch p.Type {
		case "text":
			if p.Text == nil {
				return fmt.Sprintf("Missing required parameter: '%s.text'.", at)
			}
		case "image_url":
			if why := checkImagePart(at, p, m.Role, textOnly); why != "" {
				return why
			}
		case "input_audio", "file":
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'. (%s.type)", p.Type, at)
		}
	}
	return ""
}

func checkImagePart(at string, p wirePart, role string, textOnly bool) string {
	switch {
	case role != "user":
		return fmt.Sprintf("Invalid 'messages.content': image_url parts are only allowed in messages with role 'user', not '%s'. (%s)", role, at)
	case textOnly:
		return fmt.Sprintf("Invalid content type. image_url is only supported by certain models. (%s)", at)
	case p.ImageURL == nil || p.ImageURL.URL == "":
		return fmt.Sprintf("Missing required parameter: '%s.image_url.url'.", at)
	}
	if _, err := decodeImageURL(p.ImageURL.URL); err != nil {
		return fmt.Sprintf("Invalid image URL: %v. Expected a valid http(s) URL or a base64-encoded data URL of an image. (%s.image_url.url)", err, at)
	}
	return ""
}

// decodeImageURL checks an image URL: http(s), or data:image/<x>;base64,
// with valid base64.
func decodeImageURL(url string) (Image, error) {
	img := Image{URL: url}
	if strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://") {
		return img, nil
	}
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return img, fmt.Errorf("the scheme is neither http(s) nor data")
	}
	meta, data, ok := strings.Cut(rest, ",")
	mimeType, isB64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isB64 || !strings.HasPrefix(mimeType, "image/") {
		return img, fmt.Errorf("a data URL must be data:image/<type>;base64,<data>, got %.40q", url)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 {
		return img, fmt.Errorf("the base64 data does not decode")
	}
	img.MimeType, img.Data = mimeType, raw
	return img, nil
}
