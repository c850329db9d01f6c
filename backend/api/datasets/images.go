package datasets

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// An image document is a stored image file, not looked into (no OCR, no
// automatic captions). Its caption is the text of its one chunk, embedded
// and indexed like any chunk, so searches and bots recall images by what
// their captions say; an image without a caption is never recalled.

// ListImages answers GET /v1/datasets/{dataset_id}/images?page_num&
// page_size&keyword&has_caption with data {photo_infos, total_count},
// newest first: keyword matches names and captions, ignoring case;
// has_caption keeps images with (true) or without (false) one. A
// knowledge base that does not hold images is a 400.
func (h Handlers) ListImages(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "dataset_id")
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 10, 299)
	if err != nil {
		return err
	}
	f, err := imageFilter(c)
	if err != nil {
		return err
	}
	p := httpx.Caller(c)
	docs, err := h.images(ctx, p, id)
	if err != nil {
		return err
	}
	photos, err := h.photos(ctx, p, id, docs, f)
	if err != nil {
		return err
	}
	total := len(photos)
	photos = photos[min(page.Offset(), total):min(page.Offset()+page.Size, total)]
	for i := range photos {
		if !f.needsCaptions() { // captions of this page only
			if photos[i].Caption, err = h.captionOf(ctx, p, id, docs[page.Offset()+i]); err != nil {
				return err
			}
		}
	}
	httpx.OK(c, map[string]any{"photo_infos": photos, "total_count": total})
	return nil
}

type photoFilter struct {
	keyword    string
	hasCaption *bool
}

func (f photoFilter) needsCaptions() bool { return f.keyword != "" || f.hasCaption != nil }

func (f photoFilter) keep(p PhotoInfo) bool {
	if f.hasCaption != nil && (p.Caption != "") != *f.hasCaption {
		return false
	}
	k := strings.ToLower(f.keyword)
	return k == "" || strings.Contains(strings.ToLower(p.Name), k) || strings.Contains(strings.ToLower(p.Caption), k)
}

func imageFilter(c *app.RequestContext) (photoFilter, error) {
	f := photoFilter{keyword: strings.TrimSpace(string(c.Query("keyword")))}
	if v := string(c.Query("has_caption")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return f, errs.Invalid("has_caption", "must be true or false, got %q", v)
		}
		f.hasCaption = &b
	}
	return f, nil
}

// images returns every document of an image knowledge base, newest first.
func (h Handlers) images(ctx context.Context, p identity.Principal, id int64) ([]knowledge.Document, error) {
	v, err := h.Svc.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if v.Format != knowledge.FormatImage {
		return nil, errs.Invalid("dataset_id", "knowledge base %d holds format %d, not images (format_type 2)", id, v.Format)
	}
	var all []knowledge.Document
	for n := 1; ; n++ {
		docs, total, err := h.Svc.ListDocuments(ctx, p, id, identity.Page{Number: n, Size: 100})
		if err != nil {
			return nil, err
		}
		all = append(all, docs...)
		if len(docs) == 0 || int64(len(all)) >= total {
			return all, nil
		}
	}
}

// photos renders the documents that pass the filter; captions are read
// only when the filter needs them.
func (h Handlers) photos(ctx context.Context, p identity.Principal, id int64, docs []knowledge.Document, f photoFilter) ([]PhotoInfo, error) {
	out := make([]PhotoInfo, 0, len(docs))
	for _, d := range docs {
		caption := ""
		if f.needsCaptions() {
			var err error
			if caption, err = h.captionOf(ctx, p, id, d); err != nil {
				return nil, err
			}
		}
		if ph := newPhotoInfo(d, caption); f.keep(ph) {
			out = append(out, ph)
		}
	}
	return out, nil
}

// captionOf reads an image document's caption, its first chunk.
func (h Handlers) captionOf(ctx context.Context, p identity.Principal, id int64, d knowledge.Document) (string, error) {
	if d.Chunks == 0 {
		return "", nil
	}
	cs, _, err := h.Svc.Chunks(ctx, p, id, d.ID, identity.Page{Number: 1, Size: 1})
	if err != nil {
		return "", fmt.Errorf("caption of document %d: %w", d.ID, err)
	}
	if len(cs) == 0 {
		return "", nil
	}
	return cs[0].Text, nil
}

// UpdateImage answers PUT /v1/datasets/{dataset_id}/images/{document_id}
// {caption} with {}: the caption replaces the image's searchable text; an
// empty caption removes it.
func (h Handlers) UpdateImage(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "dataset_id")
	if err != nil {
		return err
	}
	docID, err := httpx.PathID(c, "document_id")
	if err != nil {
		return err
	}
	var req struct {
		Caption *string `json:"caption"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.Caption == nil {
		return errs.Invalid("caption", "is required (an empty caption removes it)")
	}
	p := httpx.Caller(c)
	v, err := h.Svc.Get(ctx, p, id)
	if err != nil {
		return err
	}
	if v.Format != knowledge.FormatImage {
		return errs.Invalid("dataset_id", "knowledge base %d holds format %d, not images (format_type 2)", id, v.Format)
	}
	if err := h.setCaption(ctx, p, id, docID, strings.TrimSpace(*req.Caption)); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// caption gives a new image document the caption sent with it.
func (h Handlers) caption(ctx context.Context, p identity.Principal, id int64, d *knowledge.Document, text string) error {
	if text = strings.TrimSpace(text); text == "" {
		return nil
	}
	if err := h.setCaption(ctx, p, id, d.ID, text); err != nil {
		return fmt.Errorf("caption of document %d: %w", d.ID, err)
	}
	d.Chunks = 1
	return nil
}

// setCaption makes text the one chunk of an image document ("" leaves it
// none).
func (h Handlers) setCaption(ctx context.Context, p identity.Principal, id, docID int64, text string) error {
	cs, _, err := h.Svc.Chunks(ctx, p, id, docID, identity.Page{Number: 1, Size: 100})
	if err != nil {
		return err
	}
	keep := 0
	switch {
	case text == "":
		keep = -1
	case len(cs) == 0:
		_, err = h.Svc.AddChunk(ctx, p, id, docID, text)
	default:
		_, err = h.Svc.EditChunk(ctx, p, id, cs[0].ID, text)
	}
	if err != nil {
		return renameField(err, func(string) string { return "caption" })
	}
	for i := keep + 1; i < len(cs); i++ {
		if err := h.Svc.DeleteChunk(ctx, p, id, cs[i].ID); err != nil {
			return err
		}
	}
	return nil
}
