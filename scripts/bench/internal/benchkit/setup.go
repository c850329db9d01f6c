package benchkit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// AddFakeModel registers the fake model at llmURL (its /v1 base URL) as
// model id, with tool calling. A model already there is kept, so two
// processes of one database can both be set up.
func (c *Client) AddFakeModel(id, llmURL string) error {
	_, err := c.Call("POST", "/api/admin/models", map[string]any{"id": id, "provider": "openai", "base_url": llmURL,
		"api_key": "k", "model": "fake", "capabilities": map[string]any{"tools": true}}, 201)
	if err != nil && strings.Contains(err.Error(), "status 409") {
		return nil
	}
	return err
}

// Workspace returns the id of the token's first workspace.
func (c *Client) Workspace() (string, error) {
	env, err := c.Call("GET", "/v1/workspaces", nil, 200)
	if err != nil {
		return "", err
	}
	var data struct {
		Workspaces []struct {
			ID string `json:"id"`
		} `json:"workspaces"`
	}
	if err := env.Into(&data); err != nil {
		return "", err
	}
	if len(data.Workspaces) == 0 {
		return "", fmt.Errorf("the token has no workspace")
	}
	return data.Workspaces[0].ID, nil
}

// PublishBot creates a bot in workspace ws with the console config cfg
// and publishes it; it returns the bot's id.
func (c *Client) PublishBot(ws string, cfg map[string]any) (string, error) {
	cfg["workspace_id"] = ws
	return c.createAndPublish("/api/bots", cfg)
}

// PublishWorkflow creates a workflow in workspace ws from a definition and
// publishes it; it returns the workflow's id.
func (c *Client) PublishWorkflow(ws, name string, def json.RawMessage) (string, error) {
	return c.createAndPublish("/api/workflows", map[string]any{"workspace_id": ws, "name": name, "definition": def})
}

func (c *Client) createAndPublish(path string, body map[string]any) (string, error) {
	env, err := c.Call("POST", path, body, 201)
	if err != nil {
		return "", err
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := env.Into(&created); err != nil {
		return "", err
	}
	if _, err := c.Call("POST", path+"/"+created.ID+"/publish", nil, 201); err != nil {
		return "", err
	}
	return created.ID, nil
}
