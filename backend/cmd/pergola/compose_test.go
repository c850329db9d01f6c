package main

import (
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
)

// composeFile is the part of docker-compose.yml the test reads.
type composeFile struct {
	Services map[string]struct {
		Build       any               `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   map[string]any    `yaml:"depends_on"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("../../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// interpolate resolves ${X:-default} to its default and ${X:?message} to
// given (what a user exports), as docker compose does with X unset.
func interpolate(t *testing.T, v, given string) string {
	t.Helper()
	re := regexp.MustCompile(`\$\{(\w+)(?::-([^}]*)|:\?([^}]*))?\}`)
	return re.ReplaceAllStringFunc(v, func(m string) string {
		sub := re.FindStringSubmatch(m)
		switch {
		case strings.Contains(m, ":?"):
			return given
		case strings.Contains(m, ":-"):
			return sub[2]
		}
		t.Fatalf("%s has no default: compose would pass an empty value", m)
		return ""
	})
}

// TestComposeStartsAChattableStack reads docker-compose.yml as docker
// compose would: the fake model runs as a service of the same image, the
// models file mounted into Pergola points at it and loads, the secret key
// has no default (compose stops with a message), Pergola's environment is
// a valid configuration, and Pergola has a health check on /readyz that
// the image can run.
func TestComposeStartsAChattableStack(t *testing.T) {
	c := readCompose(t)
	for _, name := range []string{"mysql", "redis", "fakellm", "pergola"} {
		if _, ok := c.Services[name]; !ok {
			t.Fatalf("docker-compose.yml has no %s service", name)
		}
	}
	fake, app := c.Services["fakellm"], c.Services["pergola"]
	if !reflect.DeepEqual(fake.Build, app.Build) || len(fake.Command) < 3 || fake.Command[0] != "fakellm" || fake.Command[1] != "--addr" {
		t.Fatalf("fakellm service = %+v; want the pergola image running `fakellm --addr HOST:PORT`", fake)
	}
	_, fakePort, _ := strings.Cut(fake.Command[2], ":")
	if !slices.Contains(fake.Healthcheck.Test, "healthcheck") {
		t.Fatalf("fakellm has no health check: %v", fake.Healthcheck.Test)
	}
	if _, ok := app.DependsOn["fakellm"]; !ok {
		t.Fatal("pergola does not wait for fakellm")
	}
	if want := []string{"CMD", "/usr/local/bin/pergola", "healthcheck"}; !slices.Equal(app.Healthcheck.Test, want) {
		t.Fatalf("pergola health check = %v, want %v", app.Healthcheck.Test, want)
	}

	key := app.Environment["PERGOLA_SECRET_KEY"]
	if !strings.HasPrefix(key, "${PERGOLA_SECRET_KEY:?") || !strings.Contains(key, "secret") {
		t.Fatalf("PERGOLA_SECRET_KEY = %q; want it required (${PERGOLA_SECRET_KEY:?how to make one})", key)
	}
	env := map[string]string{}
	for k, v := range app.Environment {
		env[k] = interpolate(t, v, secret.GenerateKey())
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := config.Load(lookup)
	if err != nil {
		t.Fatalf("pergola's compose environment does not load: %v", err)
	}

	models := mountedModels(t, app.Volumes, cfg.ModelsFile)
	list, err := config.LoadModels(models, lookup)
	if err != nil || len(list) == 0 {
		t.Fatalf("models file %s: %v (%d models)", models, err, len(list))
	}
	for _, m := range list {
		u, err := url.Parse(m.BaseURL)
		if err != nil || u.Hostname() != "fakellm" || u.Port() != fakePort || !strings.Contains(m.Name, "FAKE") {
			t.Fatalf("model %s (%q) at %s; want it named FAKE and served by fakellm:%s", m.ID, m.Name, m.BaseURL, fakePort)
		}
	}
}

// mountedModels returns the file on this side of the volume mounted at
// target.
func mountedModels(t *testing.T, volumes []string, target string) string {
	t.Helper()
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			return "../../../" + strings.TrimPrefix(parts[0], "./")
		}
	}
	t.Fatalf("nothing is mounted at PERGOLA_MODELS_FILE %s: %v", target, volumes)
	return ""
}

// TestImageHasHealthcheckAndSmallContext checks the Dockerfile's health
// check and that .dockerignore keeps node_modules, .git and data out of the
// build context.
func TestImageHasHealthcheckAndSmallContext(t *testing.T) {
	df, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(df), `HEALTHCHECK`) || !strings.Contains(string(df), `"/usr/local/bin/pergola", "healthcheck"`) {
		t.Fatal("the Dockerfile has no HEALTHCHECK running `pergola healthcheck`")
	}
	ignore, err := os.ReadFile("../../../.dockerignore")
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	lines := strings.Split(string(ignore), "\n")
	for _, want := range []string{"**/node_modules", ".git", "data"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore does not exclude %s", want)
		}
	}
}
