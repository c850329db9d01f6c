package telegramfake

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf16"
)

// maxText is Telegram's limit on a message's text after entity parsing.
const maxText = 4096

func (s *Server) sendMessage(w http.ResponseWriter, p params) {
	chatID := p.int("chat_id")
	text := p.str("text")
	if chatID == 0 {
		writeError(w, http.StatusBadRequest, "Bad Request: chat not found", 0)
		return
	}
	if why := checkText(text, p.str("parse_mode")); why != "" {
		writeError(w, http.StatusBadRequest, why, 0)
		return
	}
	writeResult(w, s.accept(Sent{ChatID: chatID, ThreadID: p.int("message_thread_id"), Text: text, ParseMode: p.str("parse_mode"), ReplyTo: p.replyTo()}))
}

func (s *Server) accept(m Sent) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	m.MessageID = s.nextID
	s.sent = append(s.sent, m)
	s.current[m.MessageID] = m
	return map[string]any{"message_id": s.nextID, "chat": map[string]any{"id": m.ChatID}, "text": m.Text}
}

// checkText returns Telegram's refusal of a message's text, or "".
func checkText(text, parseMode string) string {
	shown := text
	if strings.EqualFold(parseMode, "HTML") {
		var err error
		if shown, err = parseHTML(text); err != nil {
			return "Bad Request: can't parse entities: " + err.Error()
		}
	}
	if strings.TrimSpace(shown) == "" {
		return "Bad Request: message text is empty"
	}
	if len(utf16.Encode([]rune(shown))) > maxText {
		return "Bad Request: message is too long"
	}
	return ""
}

var (
	tag     = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-z-]+="[^"<>]*")*)\s*>`)
	entity  = regexp.MustCompile(`^&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});`)
	allowed = map[string]bool{"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true,
		"s": true, "strike": true, "del": true, "a": true, "code": true, "pre": true, "span": true,
		"tg-spoiler": true, "blockquote": true, "tg-emoji": true}
)

// parseHTML checks text as Telegram's HTML mode does (known tags,
// balanced, entities only of the supported kinds) and returns the text
// as shown.
func parseHTML(text string) (string, error) {
	var shown strings.Builder
	var open []string
	for i := 0; i < len(text); {
		switch text[i] {
		case '<':
			m := tag.FindStringSubmatchIndex(text[i:])
			if m == nil || m[0] != 0 {
				return "", fmt.Errorf("unsupported start tag at byte offset %d", i)
			}
			name := strings.ToLower(text[i+m[4] : i+m[5]])
			if !allowed[name] {
				return "", fmt.Errorf("unsupported start tag %q at byte offset %d", name, i)
			}
			var err error
			if open, err = balance(open, name, m[3] > m[2]); err != nil {
				return "", err
			}
			i += m[1]
		case '&':
			m := entity.FindString(text[i:])
			if m == "" {
				return "", fmt.Errorf("unsupported entity at byte offset %d", i)
			}
			shown.WriteString(html.UnescapeString(m))
			i += len(m)
		default:
			shown.WriteByte(text[i])
			i++
		}
	}
	if len(open) > 0 {
		return "", fmt.Errorf("can't find end tag corresponding to start tag %q", open[len(open)-1])
	}
	return shown.String(), nil
}

func balance(open []string, name string, closing bool) ([]string, error) {
	if !closing {
		return append(open, name), nil
	}
	if len(open) == 0 || open[len(open)-1] != name {
		return nil, fmt.Errorf("unmatched end tag %q", name)
	}
	return open[:len(open)-1], nil
}

// params are a request's parameters, from a JSON or a form body.
type params map[string]any

func readParams(r *http.Request) (params, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	p := params{}
	if ct == "application/json" {
		body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err != nil || (len(body) > 0 && json.Unmarshal(body, &p) != nil) {
			return nil, fmt.Errorf("can't parse JSON object")
		}
		return p, nil
	}
	if err := r.ParseForm(); err != nil {
		return nil, err
	}
	for k := range r.Form {
		p[k] = r.Form.Get(k)
	}
	return p, nil
}

func (p params) str(k string) string {
	v, _ := p[k].(string)
	return v
}

func (p params) int(k string) int64 {
	switch v := p[k].(type) {
	case float64:
		return int64(v)
	case string:
		var n int64
		fmt.Sscan(v, &n)
		return n
	}
	return 0
}

func (p params) strs(k string) []string {
	list, _ := p[k].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

func (p params) replyTo() int64 {
	rp, _ := p["reply_parameters"].(map[string]any)
	return params(rp).int("message_id")
}

func writeResult(w http.ResponseWriter, result any) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

func writeError(w http.ResponseWriter, code int, description string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": description}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	writeJSON(w, code, body)
}

func writeFailure(w http.ResponseWriter, f failure) {
	if f.description != "" {
		writeError(w, f.status, f.description, 0)
		return
	}
	if f.status == http.StatusTooManyRequests {
		writeError(w, f.status, fmt.Sprintf("Too Many Requests: retry after %d", f.retryAfter), f.retryAfter)
		return
	}
	writeError(w, f.status, "Internal Server Error", 0)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
