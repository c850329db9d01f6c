package benchkit

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Profile asks a server's pprof listener (base such as
// http://127.0.0.1:6060) for a CPU profile of the next d while load runs,
// and writes it to path. It returns once the profile is written.
func Profile(base string, d time.Duration, path string, load func(stop <-chan struct{})) error {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		load(stop)
	}()
	err := fetchProfile(base, d, path)
	close(stop)
	<-done
	return err
}

func fetchProfile(base string, d time.Duration, path string) error {
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds()))
	resp, err := (&http.Client{Timeout: d + time.Minute}).Get(url)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("cpu profile: status %d: %.200s", resp.StatusCode, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
