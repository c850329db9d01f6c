package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Files says where uploaded files are kept and how large they may be.
// With S3Endpoint set they go to that S3-compatible bucket, otherwise to
// Dir on local disk.
type Files struct {
	// Dir holds the files on local disk; empty: <data_dir>/files.
	Dir string `yaml:"files_dir"`
	// MaxBytes bounds one upload.
	MaxBytes int `yaml:"files_max_bytes"`

	S3Endpoint  string `yaml:"s3_endpoint"` // http(s) URL of the server
	S3Bucket    string `yaml:"s3_bucket"`
	S3AccessKey string `yaml:"s3_access_key"`
	S3SecretKey string `yaml:"s3_secret_key"`
	S3Region    string `yaml:"s3_region"`
}

// DefaultFiles returns the default file settings: 20 MiB uploads on
// local disk.
func DefaultFiles() Files { return Files{MaxBytes: 20 << 20} }

func applyFilesEnv(f *Files, env Lookup) error {
	str := map[string]*string{
		"PERGOLA_FILES_DIR": &f.Dir, "PERGOLA_S3_ENDPOINT": &f.S3Endpoint, "PERGOLA_S3_BUCKET": &f.S3Bucket,
		"PERGOLA_S3_ACCESS_KEY": &f.S3AccessKey, "PERGOLA_S3_SECRET_KEY": &f.S3SecretKey, "PERGOLA_S3_REGION": &f.S3Region,
	}
	for key, dst := range str {
		if v, ok := env(key); ok {
			*dst = strings.TrimSpace(v)
		}
	}
	if v, ok := env("PERGOLA_FILES_MAX_BYTES"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_FILES_MAX_BYTES: must be an integer, got %q", v)
		}
		f.MaxBytes = n
	}
	return nil
}

// maxFileBytes bounds PERGOLA_FILES_MAX_BYTES: an upload is held in memory.
const maxFileBytes = 512 << 20

func (f Files) validate() error {
	if f.MaxBytes < 1 || f.MaxBytes > maxFileBytes {
		return fmt.Errorf("PERGOLA_FILES_MAX_BYTES: must be between 1 and %d bytes, got %d", maxFileBytes, f.MaxBytes)
	}
	if f.S3Endpoint == "" {
		return nil
	}
	u, err := url.Parse(f.S3Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("PERGOLA_S3_ENDPOINT: must be an http(s) URL such as https://s3.amazonaws.com, got %q", f.S3Endpoint)
	}
	if f.S3Bucket == "" || f.S3AccessKey == "" || f.S3SecretKey == "" {
		return fmt.Errorf("PERGOLA_S3_BUCKET, PERGOLA_S3_ACCESS_KEY and PERGOLA_S3_SECRET_KEY: required with PERGOLA_S3_ENDPOINT")
	}
	return nil
}
