package workflow

import (
	"testing"

	wf "github.com/pergola-ai/pergola/workflow"
)

func TestTableStatement(t *testing.T) {
	where := &wf.TableWhere{Logic: "or", Conditions: []wf.TableCondition{{Field: "name", Op: "eq", Value: "O'Brien \\ x"},
		{Field: "age", Op: "gte", Value: int64(18)}, {Field: "tag", Op: "in", Value: []any{"a", int64(2)}}, {Field: "gone", Op: "is_null"}}}
	cases := []struct {
		q    wf.TableQuery
		want string
	}{
		{wf.TableQuery{Op: wf.TableSelect, Fields: []string{"name", "we`ird"}, Where: where,
			OrderBy: []wf.TableOrder{{Field: "age", Desc: true}}, Limit: 5},
			"SELECT `name`, `we``ird` FROM `people` WHERE `name` = 'O''Brien \\\\ x' OR `age` >= 18 OR `tag` IN ('a', 2) OR `gone` IS NULL ORDER BY `age` DESC LIMIT 5"},
		{wf.TableQuery{Op: wf.TableSelect}, "SELECT * FROM `people`"},
		{wf.TableQuery{Op: wf.TableInsert, Values: map[string]any{"name": "Ada", "ok": true, "n": 1.5, "meta": map[string]any{"k": "v"}, "x": nil}},
			"INSERT INTO `people` (`meta`, `n`, `name`, `ok`, `x`) VALUES ('{\"k\":\"v\"}', 1.5, 'Ada', TRUE, NULL)"},
		{wf.TableQuery{Op: wf.TableUpdate, Values: map[string]any{"score": int64(3)}, Where: &wf.TableWhere{Logic: "and",
			Conditions: []wf.TableCondition{{Field: "id", Op: "eq", Value: int64(7)}}}},
			"UPDATE `people` SET `score` = 3 WHERE `id` = 7"},
		{wf.TableQuery{Op: wf.TableDelete, Where: &wf.TableWhere{Conditions: []wf.TableCondition{{Field: "name", Op: "like", Value: "A%"}}}},
			"DELETE FROM `people` WHERE `name` LIKE 'A%'"},
		{wf.TableQuery{Op: wf.TableSQL, SQL: "SELECT '?', name FROM people WHERE a = ? AND b = \"?\" AND c = ?", Args: []any{"x'y", int64(2)}},
			"SELECT '?', name FROM people WHERE a = 'x''y' AND b = \"?\" AND c = 2"},
	}
	for _, tc := range cases {
		got, err := TableStatement(tc.q, "people")
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.q.Op, got, err, tc.want)
		}
	}
	if _, err := TableStatement(wf.TableQuery{Op: wf.TableSQL, SQL: "SELECT ?", Args: nil}, "t"); err == nil {
		t.Error("a placeholder without a value was accepted")
	}
}
