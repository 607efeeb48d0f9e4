package api

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
)

// openAPIDoc is the part of the document the tests read.
type openAPIDoc struct {
	OpenAPI    string                                `json:"openapi"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"schemas"`
	} `json:"components"`
}

func loadOpenAPI(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	return doc
}

// newRouteOnlyServer builds a server whose routes can be listed; its
// service is never called.
func newRouteOnlyServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(Config{Service: play.New(play.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenAPICoversRoutes(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi version %q, want 3.1.x", doc.OpenAPI)
	}
	routed := map[string]bool{}
	for _, r := range newRouteOnlyServer(t).Routes() {
		routed[r] = true
		method, path, _ := strings.Cut(r, " ")
		op, ok := doc.Paths[path][strings.ToLower(method)]
		if !ok {
			t.Errorf("route %s is not in openapi.json", r)
			continue
		}
		var operation struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
		}
		if err := json.Unmarshal(op, &operation); err != nil || operation.OperationID == "" || len(operation.Responses) == 0 {
			t.Errorf("route %s: the operation needs an operationId and responses", r)
		}
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	for _, d := range documented {
		if !routed[d] {
			t.Errorf("openapi.json documents %s, which is not routed", d)
		}
	}
	if len(documented) < 16 {
		t.Errorf("only %d operations documented", len(documented))
	}
}

// TestOpenAPIRefsResolve checks that every $ref points at a component.
func TestOpenAPIRefsResolve(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	count := 0
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "$ref" {
					count++
					ref, _ := x.(string)
					if !resolves(doc, ref) {
						t.Errorf("unresolved $ref %q", ref)
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if count == 0 {
		t.Fatal("no $ref found: the walk is broken")
	}
}

func resolves(doc map[string]any, ref string) bool {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var cur any = doc
	for _, part := range strings.Split(path, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// TestOpenAPIListsEveryProblemType keeps the documented problem types and
// the code's constants identical.
func TestOpenAPIListsEveryProblemType(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	documented := doc.Components.Schemas["Problem"].Properties["type"].Enum
	defined := slices.Clone(problemTypes)
	slices.Sort(documented)
	slices.Sort(defined)
	if !slices.Equal(documented, defined) {
		t.Errorf("problem types differ:\n documented %v\n defined    %v", documented, defined)
	}
}
