package datasets

import (
	"slices"
	"strconv"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Coze's dataset status: a knowledge base that exists is enabled.
const datasetEnabled = 1

// Coze's document_source / source_type values.
const (
	sourceLocal  = 0 // a file: base64 content or an uploaded file
	sourceWeb    = 1 // a web page
	sourceCustom = 2 // raw text (custom_content)
)

// ChunkStrategy is Coze's chunk_strategy: chunk_type 0 automatic, 1
// custom (separator, max_tokens), 2 by markdown headings (Coze's level
// chunking); overlap as Coze Studio's. caption_type is accepted and
// ignored: image captions are written by hand (images.update).
type ChunkStrategy struct {
	ChunkType         int    `json:"chunk_type"`
	Separator         string `json:"separator"`
	MaxTokens         int    `json:"max_tokens"`
	Overlap           int    `json:"overlap"`
	RemoveExtraSpaces bool   `json:"remove_extra_spaces"`
	RemoveURLsEmails  bool   `json:"remove_urls_emails"`
	CaptionType       *int   `json:"caption_type,omitempty"`
}

func newChunkStrategy(s knowledge.ChunkStrategy) ChunkStrategy {
	return ChunkStrategy{ChunkType: int(s.Type), Separator: s.Separator, MaxTokens: s.MaxTokens, Overlap: s.Overlap,
		RemoveExtraSpaces: s.RemoveExtraSpaces, RemoveURLsEmails: s.RemoveURLsEmails}
}

func (s *ChunkStrategy) strategy() *knowledge.ChunkStrategy {
	if s == nil {
		return nil
	}
	return &knowledge.ChunkStrategy{Type: knowledge.ChunkType(s.ChunkType), Separator: s.Separator, MaxTokens: s.MaxTokens,
		Overlap: s.Overlap, RemoveExtraSpaces: s.RemoveExtraSpaces, RemoveURLsEmails: s.RemoveURLsEmails}
}

// Dataset is Coze's Dataset, as datasets.list returns it. hit_count and
// bot_used_count are 0: Pergola does not count them.
type Dataset struct {
	DatasetID            httpx.ID      `json:"dataset_id"`
	Name                 string        `json:"name"`
	Description          string        `json:"description"`
	SpaceID              httpx.ID      `json:"space_id"`
	Status               int           `json:"status"`
	FormatType           int           `json:"format_type"`
	CanEdit              bool          `json:"can_edit"`
	IconURI              string        `json:"icon_uri"`
	IconURL              string        `json:"icon_url"`
	DocCount             int64         `json:"doc_count"`
	SliceCount           int64         `json:"slice_count"`
	HitCount             int64         `json:"hit_count"`
	BotUsedCount         int64         `json:"bot_used_count"`
	AllFileSize          int64         `json:"all_file_size"`
	ChunkStrategy        ChunkStrategy `json:"chunk_strategy"`
	FileList             []string      `json:"file_list"`
	ProcessingFileList   []string      `json:"processing_file_list"`
	ProcessingFileIDList []string      `json:"processing_file_id_list"`
	FailedFileList       []string      `json:"failed_file_list"`
	CreateTime           int64         `json:"create_time"`
	UpdateTime           int64         `json:"update_time"`
	CreatorID            httpx.ID      `json:"creator_id"`
	CreatorName          string        `json:"creator_name"`
	AvatarURL            string        `json:"avatar_url"`
	EmbeddingModel       string        `json:"embedding_model"` // Pergola: the model its chunks are embedded with
}

// newDataset renders a knowledge base; docs is its first page of
// documents, which names the files of the lists.
func newDataset(v knowledgeapp.View, docs []knowledge.Document) Dataset {
	b := v.Base
	d := Dataset{DatasetID: httpx.ID(b.ID), Name: b.Name, Description: b.Description, SpaceID: httpx.ID(b.WorkspaceID),
		Status: datasetEnabled, FormatType: int(b.Format), CanEdit: true, IconURI: httpx.OptionalID(b.IconFileID),
		DocCount: v.Counts.Documents, SliceCount: v.Counts.Chunks, AllFileSize: v.Counts.Bytes,
		ChunkStrategy: newChunkStrategy(b.ChunkStrategy), CreateTime: httpx.Unix(b.CreatedAt), UpdateTime: httpx.Unix(b.UpdatedAt),
		CreatorID: httpx.ID(b.CreatorID), EmbeddingModel: b.EmbeddingModel,
		FileList: []string{}, ProcessingFileList: []string{}, ProcessingFileIDList: []string{}, FailedFileList: []string{}}
	for _, doc := range docs {
		d.FileList = append(d.FileList, doc.Name)
		switch {
		case slices.Contains(v.Counts.Failed, doc.ID):
			d.FailedFileList = append(d.FailedFileList, doc.Name)
		case slices.Contains(v.Counts.Processing, doc.ID):
			d.ProcessingFileList = append(d.ProcessingFileList, doc.Name)
		}
	}
	for _, id := range v.Counts.Processing {
		d.ProcessingFileIDList = append(d.ProcessingFileIDList, strconv.FormatInt(id, 10))
	}
	return d
}

// DocumentInfo is Coze's DocumentInfo. char_count and hit_count are 0:
// Pergola does not count them.
type DocumentInfo struct {
	DocumentID     httpx.ID      `json:"document_id"`
	Name           string        `json:"name"`
	Type           string        `json:"type"`
	Size           int64         `json:"size"`
	CharCount      int64         `json:"char_count"`
	SliceCount     int64         `json:"slice_count"`
	HitCount       int64         `json:"hit_count"`
	Status         int           `json:"status"`
	StatusDescript string        `json:"status_descript,omitempty"`
	SourceType     int           `json:"source_type"`
	FormatType     int           `json:"format_type"`
	WebURL         string        `json:"web_url,omitempty"`
	TosURI         string        `json:"tos_uri"`
	ChunkStrategy  ChunkStrategy `json:"chunk_strategy"`
	UpdateType     int           `json:"update_type"`
	UpdateInterval int           `json:"update_interval"`
	CreateTime     int64         `json:"create_time"`
	UpdateTime     int64         `json:"update_time"`
	CreatorID      httpx.ID      `json:"creator_id"`
	SpaceID        httpx.ID      `json:"space_id"`
	Progress       int           `json:"progress"` // Pergola: 0-100 while indexing
}

func newDocumentInfo(d knowledge.Document, format knowledge.Format) DocumentInfo {
	upd, every := cozeRule(d.UpdateRule)
	return DocumentInfo{DocumentID: httpx.ID(d.ID), Name: d.Name, Type: d.FileType, Size: d.Size, SliceCount: d.Chunks,
		Status: int(d.Status), StatusDescript: d.Reason, SourceType: sourceType(d), FormatType: int(format), WebURL: d.URL,
		TosURI: httpx.OptionalID(d.FileID), ChunkStrategy: newChunkStrategy(d.Strategy), UpdateType: upd, UpdateInterval: every,
		CreateTime: httpx.Unix(d.CreatedAt), UpdateTime: httpx.Unix(d.UpdatedAt), CreatorID: httpx.ID(d.CreatorID),
		SpaceID: httpx.ID(d.WorkspaceID), Progress: d.Progress}
}

func sourceType(d knowledge.Document) int {
	switch d.Source {
	case knowledge.SourceWeb:
		return sourceWeb
	case knowledge.SourceText:
		return sourceCustom
	}
	return sourceLocal
}

func cozeRule(r knowledge.UpdateRule) (updateType, interval int) {
	if r.Auto {
		return 1, r.IntervalHours
	}
	return 0, r.IntervalHours
}

// DocumentProgress is Coze's DocumentProgress. remaining_time is 0 when
// no estimate can be made yet; the status says whether indexing is over.
type DocumentProgress struct {
	DocumentID     httpx.ID `json:"document_id"`
	DocumentName   string   `json:"document_name"`
	Status         int      `json:"status"`
	StatusDescript string   `json:"status_descript,omitempty"`
	Progress       int      `json:"progress"`
	RemainingTime  int      `json:"remaining_time"`
	Size           int64    `json:"size"`
	Type           string   `json:"type"`
	URL            string   `json:"url"`
	UpdateType     int      `json:"update_type"`
	UpdateInterval int      `json:"update_interval"`
}

func newDocumentProgress(p knowledgeapp.DocumentProgress) DocumentProgress {
	upd, every := cozeRule(p.UpdateRule)
	return DocumentProgress{DocumentID: httpx.ID(p.ID), DocumentName: p.Name, Status: int(p.Status), StatusDescript: p.Reason,
		Progress: p.Progress, RemainingTime: max(p.RemainingSeconds, 0), Size: p.Size, Type: p.FileType, URL: p.URL,
		UpdateType: upd, UpdateInterval: every}
}

// PhotoInfo is Coze's ImageInfo: one image document of image knowledge
// with its caption. url is empty: image files are not served publicly;
// tos_uri (Pergola) names the stored file.
type PhotoInfo struct {
	DocumentID httpx.ID `json:"document_id"`
	Name       string   `json:"name"`
	URL        string   `json:"url"`
	Caption    string   `json:"caption"`
	Type       string   `json:"type"`
	Size       int64    `json:"size"`
	Status     int      `json:"status"`
	SourceType int      `json:"source_type"`
	CreatorID  httpx.ID `json:"creator_id"`
	CreateTime int64    `json:"create_time"`
	UpdateTime int64    `json:"update_time"`
	TosURI     string   `json:"tos_uri"`
}

func newPhotoInfo(d knowledge.Document, caption string) PhotoInfo {
	return PhotoInfo{DocumentID: httpx.ID(d.ID), Name: d.Name, URL: d.URL, Caption: caption, Type: d.FileType, Size: d.Size,
		Status: int(d.Status), SourceType: sourceType(d), CreatorID: httpx.ID(d.CreatorID), CreateTime: httpx.Unix(d.CreatedAt),
		UpdateTime: httpx.Unix(d.UpdatedAt), TosURI: httpx.OptionalID(d.FileID)}
}
