package workflow

import (
	"context"
	"net/url"
	"strings"
	"sync"
)

// Coze Studio names a file by the x-wf-file_name query parameter of its
// URL. With Coze's conversions a node input declared as a file reads the
// URL without that parameter, as Coze's does; the name stays known to the
// run (fileNames), so an HTTP node sending the file still names it.

// fileNameParam is Coze's query parameter holding a file's name.
const fileNameParam = "x-wf-file_name"

// fileNames are the names of the files a run has seen, by URL without
// the name. The zero value is ready to use.
type fileNames struct {
	mu    sync.Mutex
	byURL map[string]string
}

// note remembers the name of a file URL.
func (n *fileNames) note(url, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byURL == nil {
		n.byURL = map[string]string{}
	}
	n.byURL[url] = name
}

// name returns the name noted for url, or "".
func (n *fileNames) name(url string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byURL[url]
}

// strip removes x-wf-file_name from the file URLs of v, which was
// converted to s: files, arrays of them and object fields that are files.
func (n *fileNames) strip(s Schema, v any) any {
	switch s.Type {
	case TypeFile:
		if str, ok := v.(string); ok {
			return n.stripURL(str)
		}
	case TypeArray:
		if a, ok := v.([]any); ok && s.Items != nil {
			for i := range a {
				a[i] = n.strip(*s.Items, a[i])
			}
		}
	case TypeObject:
		if m, ok := v.(map[string]any); ok {
			for _, p := range s.Properties {
				if x, has := m[p.Name]; has {
					m[p.Name] = n.strip(p.Schema, x)
				}
			}
		}
	}
	return v
}

// stripURL returns raw without its x-wf-file_name parameter (the other
// parameters kept as written) and notes the name.
func (n *fileNames) stripURL(raw string) string {
	base, query, ok := strings.Cut(raw, "?")
	if !ok || !strings.Contains(query, fileNameParam) {
		return raw
	}
	var kept []string
	name := ""
	for _, part := range strings.Split(query, "&") {
		key, value, _ := strings.Cut(part, "=")
		if k, err := url.QueryUnescape(key); err == nil && k == fileNameParam {
			if v, err := url.QueryUnescape(value); err == nil {
				name = v
			}
			continue
		}
		kept = append(kept, part)
	}
	out := base
	if len(kept) > 0 {
		out += "?" + strings.Join(kept, "&")
	}
	if name != "" {
		n.note(out, name)
	}
	return out
}

type fileNamesKey struct{}

// withFileNames hands the run's file names to what a node calls.
func withFileNames(ctx context.Context, n *fileNames) context.Context {
	return context.WithValue(ctx, fileNamesKey{}, n)
}

// fileNameOf is the name the run noted for a file URL, or "".
func fileNameOf(ctx context.Context, url string) string {
	if n, ok := ctx.Value(fileNamesKey{}).(*fileNames); ok {
		return n.name(url)
	}
	return ""
}
