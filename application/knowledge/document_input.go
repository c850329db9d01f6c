package knowledge

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// The file types each format takes.
var (
	textTypes  = []string{"txt", "md", "markdown", "html", "htm", "pdf", "docx", "json"}
	tableTypes = []string{"csv", "xlsx", "json"}
	imageTypes = []string{"png", "jpg", "jpeg", "gif", "webp", "bmp"}
)

func typesOf(f knowledge.Format) []string {
	switch f {
	case knowledge.FormatTable:
		return tableTypes
	case knowledge.FormatImage:
		return imageTypes
	}
	return textTypes
}

// newDocument checks one input and makes the document it adds; field
// prefixes every error's field.
func (s *Service) newDocument(ctx context.Context, b *knowledge.Base, userID int64, in DocumentInput, field string) (*knowledge.Document, error) {
	d := &knowledge.Document{ID: s.d.IDs.Next(), WorkspaceID: b.WorkspaceID, KnowledgeID: b.ID, CreatorID: userID,
		Strategy: b.ChunkStrategy, Columns: in.Columns, Status: knowledge.StatusProcessing}
	if err := s.setSource(ctx, b, d, in, field); err != nil {
		return nil, err
	}
	if !slices.Contains(typesOf(b.Format), d.FileType) {
		return nil, errs.Invalid(field+".file_type", "%q is not taken by this knowledge base; it takes %s", d.FileType, strings.Join(typesOf(b.Format), ", "))
	}
	if d.Size > s.d.Limits.FileBytes {
		return nil, errs.Invalid(field, "is %d bytes; the limit is %d bytes", d.Size, s.d.Limits.FileBytes)
	}
	if err := s.documentRules(d, in, field); err != nil {
		return nil, err
	}
	if b.Format == knowledge.FormatImage { // kept as a file, nothing to index
		d.Status, d.Progress = knowledge.StatusReady, 100
	}
	return d, nil
}

// documentRules checks the name, strategy and update rule.
func (s *Service) documentRules(d *knowledge.Document, in DocumentInput, field string) error {
	name, err := knowledge.CheckName(field+".name", firstNonEmpty(in.Name, d.Name), knowledge.MaxDocumentNameLen)
	if err != nil {
		return err
	}
	d.Name = name
	if in.Strategy != nil {
		if err := checkStrategy(*in.Strategy); err != nil {
			return prefixField(err, field)
		}
		d.Strategy = *in.Strategy
	}
	if in.UpdateRule.Auto && d.Source != knowledge.SourceWeb {
		return errs.Invalid(field+".update_rule", "only web pages can be refreshed automatically")
	}
	if in.UpdateRule.Auto && (in.UpdateRule.IntervalHours < 1 || in.UpdateRule.IntervalHours > 24*365) {
		return errs.Invalid(field+".update_rule.update_interval", "must be between 1 and 8760 hours, not %d", in.UpdateRule.IntervalHours)
	}
	d.UpdateRule = in.UpdateRule
	return nil
}

// setSource sets the document's source from exactly one of the input's.
func (s *Service) setSource(ctx context.Context, b *knowledge.Base, d *knowledge.Document, in DocumentInput, field string) error {
	n := 0
	for _, given := range []bool{in.FileID != 0, len(in.Content) > 0, in.URL != "", in.Text != ""} {
		if given {
			n++
		}
	}
	if n != 1 {
		return errs.Invalid(field, "give exactly one source: file_id (an uploaded file), content (base64), url (a web page) or text")
	}
	switch {
	case in.FileID != 0:
		return s.fileSource(ctx, b, d, in, field)
	case len(in.Content) > 0:
		d.Source, d.Size, d.FileType = knowledge.SourceFile, int64(len(in.Content)), strings.ToLower(firstNonEmpty(in.FileType, extOf(in.Name)))
		if d.FileType == "" {
			return errs.Invalid(field+".file_type", "is required with content: the extension of the file (txt, md, pdf, docx, csv, ...)")
		}
	case in.URL != "":
		return webSource(d, in, field)
	default:
		d.Source, d.Text, d.Size = knowledge.SourceText, in.Text, int64(len(in.Text))
		d.FileType = strings.ToLower(firstNonEmpty(in.FileType, "txt"))
	}
	return nil
}

// fileSource checks an uploaded file of the knowledge base's workspace.
func (s *Service) fileSource(ctx context.Context, b *knowledge.Base, d *knowledge.Document, in DocumentInput, field string) error {
	f, err := s.d.Files.Of(ctx, b.WorkspaceID, in.FileID)
	if isNotFound(err) {
		return errs.Invalid(field+".file_id", "there is no file %d in this workspace; upload it with /v1/files/upload first", in.FileID)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	d.Source, d.FileID, d.Size, d.Name = knowledge.SourceFile, f.ID, f.Bytes, f.Name
	d.FileType = strings.ToLower(firstNonEmpty(extOf(f.Name), in.FileType))
	return nil
}

// webSource checks a web page's address; the egress guard checks where it
// leads when it is fetched.
func webSource(d *knowledge.Document, in DocumentInput, field string) error {
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.Invalid(field+".url", "must be an http or https address, not %q", in.URL)
	}
	d.Source, d.URL, d.FileType, d.Name = knowledge.SourceWeb, u.String(), "html", u.Host+u.Path
	return nil
}

// prefixField puts field before the field a FieldError names.
func prefixField(err error, field string) error {
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		return errs.Invalid(field+"."+fe.Field, "%s", fe.Reason)
	}
	return err
}

func isNotFound(err error) bool { return errors.Is(err, errs.ErrNotFound) }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
