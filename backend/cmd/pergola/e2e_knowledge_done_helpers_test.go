package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// doneFact is one question of the "Done when" corpus: only doc holds
// fact, and the scripted model repeats fact only when a chunk holding it
// is quoted in its prompt.
type doneFact struct {
	doc      string
	question string
	fact     string
}

// doneFacts is one question per document, each in words the others do
// not share.
var doneFacts = []doneFact{
	{"warranty.pdf", "How many years of warranty does the Lumen kettle carry?", "warranty of seven years"},
	{"visitors.docx", "Where do visitors park their bicycles?", "bicycles in the blue cage behind the library"},
	{"onboarding.md", "Who hands out badges to new starters?", "badge from Orla at reception"},
	{"wifi.md", "What is the guest wifi password?", "guest wifi password is heron-42"},
	{"canteen page", "What does the canteen serve on Thursday?", "canteen serves ramen every Thursday"},
	{"rooms.csv", "On which floor is the Boreal room?", "floor: 5"},
}

// The documents' contents. Each holds filler paragraphs besides its fact,
// so that retrieval has to pick the right chunk.
var (
	donePDF = [][]string{
		{"Lumen kettle: user guide", "", "Fill the kettle up to the MAX line and press the switch."},
		{"Warranty", "", "The Lumen kettle carries a warranty of seven years from the date of purchase."},
	}
	doneDOCXParagraphs = []string{
		"Visitor rules",
		"Visitors sign the register at the front desk.",
		"Visitors park their bicycles in the blue cage behind the library.",
	}
	doneOnboardingMD = "# Onboarding\n\n## First day\n\nYour manager meets you at nine.\n\n" +
		"## Badges\n\nNew starters collect their badge from Orla at reception.\n"
	doneWifiMD = "# Network\n\nThe guest wifi password is heron-42. Change it every spring.\n\n" +
		"# Printers\n\nThe printer on the second floor prints in colour.\n"
	doneCanteenHTML = `<html><head><title>Canteen</title></head><body><nav>Home Menu Contact</nav>` +
		`<article><h1>Canteen weekly menu</h1><p>The canteen serves ramen every Thursday, from noon to two.</p>` +
		`<p>Fresh fruit is free on Mondays.</p></article></body></html>`
	doneRoomsCSV = "room,floor,capacity\nAtlas,3,12\nBoreal,5,40\nCirrus,1,6\n"
)

// minimalPDF writes a PDF whose pages hold ASCII lines in Helvetica, one
// below the other, with a correct cross-reference table: what the
// parser reads from any PDF a word processor exports.
func minimalPDF(pages [][]string) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for _, lines := range pages {
		var c strings.Builder
		c.WriteString("BT\n72 720 Td\n")
		for _, l := range lines {
			if l != "" {
				fmt.Fprintf(&c, "/F1 12 Tf (%s) Tj\n", l)
			}
			c.WriteString("0 -14 Td\n")
		}
		c.WriteString("ET")
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// minimalDOCX writes a Word document of plain paragraphs: the three parts
// a .docx needs (content types, package relationships, the body).
func minimalDOCX(t *testing.T, paragraphs []string) []byte {
	t.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, p)
	}
	parts := []struct{ name, text string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			body.String() + `</w:body></w:document>`},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(p.text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// canteenPage serves the web page document on 127.0.0.1.
func canteenPage(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(doneCanteenHTML))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/canteen"
}

// doneModel is the fake model server answering chats and embeddings. A
// question of doneFacts is answered with its fact only when a message of
// the request (the system prompt for auto call, a tool result on demand)
// quotes it; otherwise the model says it does not know. An on-demand
// bot's first call searches the knowledge with the question.
func doneModel(t *testing.T) *fakellm.Server {
	t.Helper()
	llm := fakellm.New()
	if _, err := llm.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	llm.When(func(r fakellm.Request) bool {
		last := r.Messages[len(r.Messages)-1]
		return r.HasTool("search_knowledge") && last.Role == "user"
	}, func(r fakellm.Request) fakellm.Reply {
		return fakellm.Calls(fakellm.Call("search_knowledge", fmt.Sprintf(`{"query":%q}`, r.LastUserText())))
	})
	llm.When(func(r fakellm.Request) bool { return factOf(r.LastUserText()) != nil }, func(r fakellm.Request) fakellm.Reply {
		f := factOf(r.LastUserText())
		for _, m := range r.Messages {
			if strings.Contains(m.Content, f.fact) {
				return fakellm.Text("From the documents: " + f.fact + ".")
			}
		}
		return fakellm.Text("I do not know.")
	})
	return llm
}

func factOf(question string) *doneFact {
	for i := range doneFacts {
		if doneFacts[i].question == question {
			return &doneFacts[i]
		}
	}
	return nil
}

// registerDoneModels adds the fake chat model and the default embedding
// model, both on llm.
func registerDoneModels(t *testing.T, s *testServer, llm *fakellm.Server) {
	t.Helper()
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": llm.BaseURL(),
		"api_key": "k", "model": "fake", "capabilities": map[string]any{"tools": true}}).must(t, 201)
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding", "provider": "openai",
		"base_url": llm.BaseURL(), "api_key": "k", "model": "fake-embed"}).must(t, 201)
}

// startSelf starts this test binary as a pergola server process (see
// asServerEnv in TestMain), with env.
func startSelf(t *testing.T, env map[string]string) *process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env = maps.Clone(env)
	env[asServerEnv] = "1"
	return startProcess(t, exe, env)
}
