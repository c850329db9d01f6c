package wftool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// fakeWorkflows is an in-memory Workflows.
type fakeWorkflows struct {
	wfs      map[int64]*workflow.Workflow
	versions map[int64][]byte // workflow id → definition of every version
}

func (f fakeWorkflows) GetWorkflow(_ context.Context, id int64) (*workflow.Workflow, error) {
	if w, ok := f.wfs[id]; ok {
		return w, nil
	}
	return nil, workflow.NotFound(id)
}

func (f fakeWorkflows) GetVersion(_ context.Context, id, n int64) (*workflow.Version, error) {
	w, ok := f.wfs[id]
	if !ok || n < 1 || n > w.PublishedVersion {
		return nil, errs.NotFound("version", "")
	}
	return &workflow.Version{WorkflowID: id, Number: n, Definition: f.versions[id]}, nil
}

const textDef = `{"nodes":[{"id":"start","type":"start","outputs":[{"name":"topic","type":"string","required":true,"description":"what about"},
 {"name":"tags","type":"array","items":{"type":"string"}}]},
 {"id":"end","type":"end","config":{"mode":"text","template":"{{t}}"},"inputs":{"t":{"ref":{"node":"start","path":"topic"}}}}],
 "edges":[{"from":"start","to":"end"}]}`

func newFixture() *Service {
	return New(Deps{Workflows: fakeWorkflows{
		wfs: map[int64]*workflow.Workflow{
			1: {ID: 1, WorkspaceID: 10, Name: "poem", Description: "writes", Definition: []byte(textDef), PublishedVersion: 2},
			2: {ID: 2, WorkspaceID: 10, Name: "poem", Definition: []byte(textDef)},
			3: {ID: 3, WorkspaceID: 99, Name: "other", Definition: []byte(textDef), PublishedVersion: 1},
		},
		versions: map[int64][]byte{1: []byte(textDef), 3: []byte(textDef)},
	}})
}

func TestBindWorkflows(t *testing.T) {
	s := newFixture()
	tests := []struct {
		name    string
		refs    []bot.WorkflowRef
		publish bool
		want    []bot.WorkflowRef
		field   string
	}{
		{"draft keeps an empty version", []bot.WorkflowRef{{WorkflowID: 2}}, false, []bot.WorkflowRef{{WorkflowID: 2}}, ""},
		{"publish pins the latest", []bot.WorkflowRef{{WorkflowID: 1}}, true, []bot.WorkflowRef{{WorkflowID: 1, Version: "2"}}, ""},
		{"a named version stays", []bot.WorkflowRef{{WorkflowID: 1, Version: "1"}}, true, []bot.WorkflowRef{{WorkflowID: 1, Version: "1"}}, ""},
		{"unpublished at publish", []bot.WorkflowRef{{WorkflowID: 1}, {WorkflowID: 2}}, true, nil, "workflows[1].workflow_id"},
		{"another workspace", []bot.WorkflowRef{{WorkflowID: 3}}, false, nil, "workflows[0].workflow_id"},
		{"unknown", []bot.WorkflowRef{{WorkflowID: 404}}, false, nil, "workflows[0].workflow_id"},
		{"twice", []bot.WorkflowRef{{WorkflowID: 1}, {WorkflowID: 1}}, false, nil, "workflows[1].workflow_id"},
		{"no such version", []bot.WorkflowRef{{WorkflowID: 1, Version: "7"}}, false, nil, "workflows[0].version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.BindWorkflows(context.Background(), 10, tc.refs, tc.publish)
			if tc.field != "" {
				if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
					t.Fatalf("err = %v, want invalid %s", err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("pinned (-want +got):\n%s", d)
			}
		})
	}
}

func TestBotToolsDescribeTheStartNode(t *testing.T) {
	s := newFixture()
	b := &bot.Bot{ID: 5, WorkspaceID: 10, Draft: bot.Config{Workflows: []bot.WorkflowRef{{WorkflowID: 1}, {WorkflowID: 2}, {WorkflowID: 3}}}}
	tools, err := s.BotTools(context.Background(), b, &b.Draft)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 {
		t.Fatalf("got %d tools; the workflow of another workspace must be left out", len(tools))
	}
	var names []string
	for _, tl := range tools {
		info, _ := tl.Info(context.Background())
		names = append(names, info.Name)
	}
	if d := cmp.Diff([]string{"poem", "poem_2"}, names); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
	info, _ := tools[0].Info(context.Background())
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if js.Required[0] != "topic" || info.Desc != "writes" || !tools[0].(*wfTool).text {
		t.Fatalf("info = %+v, schema %+v", info, js)
	}
	if tags, _ := js.Properties.Get("tags"); tags == nil || tags.Type != "array" || tags.Items.Type != "string" {
		t.Fatalf("tags = %+v", tags)
	}
}

func TestToolName(t *testing.T) {
	tests := map[string]string{"Weather report!": "Weather_report", "3d": "wf_3d", "天气": "workflow_7", "a--b": "a--b",
		strings.Repeat("x", 70): strings.Repeat("x", 64)}
	for in, want := range tests {
		if got := wf.ToolName(in, 7); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}
