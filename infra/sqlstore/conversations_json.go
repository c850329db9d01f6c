package sqlstore

import "encoding/json"

// metaDataJSON encodes meta data as a JSON object; nil becomes "{}".
func metaDataJSON(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// metaDataFromJSON decodes a JSON object; an empty one gives nil.
func metaDataFromJSON(s string) (map[string]string, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// optionalJSON encodes v as JSON, or NULL when v is nil.
func optionalJSON[T any](v *T) (*string, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := string(b)
	return &s, nil
}

// fromOptionalJSON decodes a nullable JSON column; NULL gives nil.
func fromOptionalJSON[T any](s *string) (*T, error) {
	if s == nil {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal([]byte(*s), v); err != nil {
		return nil, err
	}
	return v, nil
}
