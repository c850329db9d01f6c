package filestore

import "github.com/minio/minio-go/v7"

func minioBucketOptions() minio.MakeBucketOptions {
	return minio.MakeBucketOptions{Region: "us-east-1"}
}
