package docparse

import (
	"github.com/ledongthuc/pdf"
	"github.com/pergola-ai/pergola/domain/errs"
)

// pdfPages lists the pages in order by walking the page tree itself: the
// library's own lookup walks the tree again for every page and never
// ends on a tree whose kids loop back. The walk visits a bounded number
// of nodes, so a looping or bloated tree is refused.
func pdfPages(r *pdf.Reader, maxPages int) (pages []pdf.Page, err error) {
	defer recoverPDF(&err, "read the pages of")
	if n := r.NumPage(); n > maxPages {
		return nil, errs.Invalid("file", "the PDF has %d pages, more than %d; split it into smaller files", n, maxPages)
	}
	w := &pageWalk{max: maxPages, budget: 4*maxPages + 64}
	if err := w.walk(r.Trailer().Key("Root").Key("Pages"), 0); err != nil {
		return nil, err
	}
	if len(w.pages) == 0 {
		return nil, errs.Invalid("file", "the PDF has no pages; check that it is a complete PDF")
	}
	return w.pages, nil
}

// pageWalk gathers pages depth first within a budget of tree nodes.
type pageWalk struct {
	max    int
	budget int
	pages  []pdf.Page
}

// maxPageTreeDepth is far deeper than any PDF writer nests pages.
const maxPageTreeDepth = 64

func (w *pageWalk) walk(v pdf.Value, depth int) error {
	w.budget--
	if w.budget < 0 || depth > maxPageTreeDepth {
		return errs.Invalid("file", "the PDF's page tree loops or is far too large; the file is damaged, export it again")
	}
	kids := v.Key("Kids")
	if v.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array {
		for i := 0; i < kids.Len(); i++ {
			if err := w.walk(kids.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if v.Kind() != pdf.Dict {
		return nil // a broken reference; its page is skipped
	}
	if len(w.pages) >= w.max {
		return errs.Invalid("file", "the PDF has more than %d pages; split it into smaller files", w.max)
	}
	w.pages = append(w.pages, pdf.Page{V: v})
	return nil
}
