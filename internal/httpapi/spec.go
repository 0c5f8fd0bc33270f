package httpapi

import (
	"encoding/json"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// SharedSpec returns the embedded spec, loaded and validated once per process. Loading it is
// the costliest step of building a server (about half a second of CPU: YAML, then JSON, then
// the validation walk), which a test suite that builds a server per test would otherwise pay
// hundreds of times. Callers must treat it as read-only (copy the top-level value to change
// its Servers, as New does); LoadSpec gives a private copy to change at will.
func SharedSpec() (*openapi3.T, error) {
	sharedSpecOnce.Do(func() { sharedSpecDoc, sharedSpecErr = LoadSpec() })
	return sharedSpecDoc, sharedSpecErr
}

// sharedSpecJSON is the shared spec as JSON, served at /v1/openapi.json: encoded once, as the
// spec is loaded once.
func sharedSpecJSON() ([]byte, error) {
	sharedJSONOnce.Do(func() {
		doc, err := SharedSpec()
		if err != nil {
			sharedJSONErr = err
			return
		}
		sharedJSON, sharedJSONErr = json.Marshal(doc)
	})
	return sharedJSON, sharedJSONErr
}

var (
	sharedJSONOnce sync.Once
	sharedJSON     []byte
	sharedJSONErr  error

	sharedSpecOnce sync.Once
	sharedSpecDoc  *openapi3.T
	sharedSpecErr  error
)
