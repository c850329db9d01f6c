package filestore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

// S3Config names an S3-compatible bucket. Endpoint is a URL such as
// https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000; its scheme
// says whether TLS is used.
type S3Config struct {
	Endpoint  string
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string
}

// S3 keeps files as objects of one bucket, with the minio-go client
// (which speaks to AWS S3 and every S3-compatible server).
type S3 struct {
	client *minio.Client
	bucket string
}

var _ file.Blobs = (*S3)(nil)

// NewS3 returns a store on the bucket. It does not reach the server: use
// Check at start to fail early on a wrong endpoint, key or bucket.
func NewS3(c S3Config) (*S3, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("PERGOLA_S3_ENDPOINT: must be an http(s) URL of the server, without a path, such as https://s3.amazonaws.com; got %q", c.Endpoint)
	}
	if c.Bucket == "" {
		return nil, fmt.Errorf("PERGOLA_S3_BUCKET: is required with PERGOLA_S3_ENDPOINT")
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: u.Scheme == "https",
		Region: c.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("filestore: S3 client: %w", err)
	}
	return &S3{client: client, bucket: c.Bucket}, nil
}

// Check fails unless the bucket exists and the credentials reach it.
func (s *S3) Check(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("filestore: S3 bucket %s: %w", s.bucket, err)
	}
	if !ok {
		return fmt.Errorf("PERGOLA_S3_BUCKET: bucket %s does not exist", s.bucket)
	}
	return nil
}

// Put uploads data as the object key.
func (s *S3) Put(ctx context.Context, key string, data []byte, mimeType string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: mimeType})
	if err != nil {
		return fmt.Errorf("filestore: S3 put %s: %w", key, err)
	}
	return nil
}

// Get downloads the object key; errs.ErrNotFound when there is none.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.getErr(key, err)
	}
	defer obj.Close()
	data, err := io.ReadAll(obj)
	if err != nil {
		return nil, s.getErr(key, err)
	}
	return data, nil
}

func (s *S3) getErr(key string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return errs.NotFound("stored file", strings.TrimPrefix(key, "files/"))
	}
	return fmt.Errorf("filestore: S3 get %s: %w", key, err)
}

// Delete removes the object key; a missing object is no error.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("filestore: S3 delete %s: %w", key, err)
	}
	return nil
}
