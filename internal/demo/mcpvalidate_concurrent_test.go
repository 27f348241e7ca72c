package demo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/theurian/boundlab/internal/demo"
)

// TestConcurrentServedCalls: many clients at once through the front gate and
// the middleware over HTTP, admitted and refused calls mixed (each refusal
// stage: the front gate's envelope, the gate under the envelope, the schema,
// an unknown tool), each answered as it is alone: a valid call served with
// its own id, a refused one with its own bound and id, no caller value in any
// answer, and the budget back to zero. CI runs it under -race.
func TestConcurrentServedCalls(t *testing.T) {
	hs, _ := guarded(t, nil, demo.Stateless())
	kinds := []struct {
		name    string
		body    func(id int) string
		status  int
		isError bool
		want    string
	}{
		{"valid", func(id int) string {
			return toolCall(fmt.Sprint(id), `"knowledge.search"`, `{"projectId":"demo","query":"q`+fmt.Sprint(id)+`"}`)
		}, http.StatusOK, false, `"result"`},
		{"schema", func(id int) string {
			return toolCall(fmt.Sprint(id), `"knowledge.search"`, `{"projectId":"demo","query":"x","force":"`+canary+`"}`)
		}, http.StatusOK, true, "unevaluatedProperties"},
		{"gate", func(id int) string {
			return toolCall(fmt.Sprint(id), `"knowledge.search"`, `{"projectId":"demo","query":"`+canary+`","query":"x"}`)
		}, http.StatusOK, true, "bound duplicate-name"},
		{"envelope", func(id int) string {
			return `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"tools/call","params":{"name":"knowledge.search","name":"` + canary + `"}}`
		}, http.StatusBadRequest, false, "duplicate-name"},
		{"unknown tool", func(id int) string {
			return toolCall(fmt.Sprint(id), `"no.such.tool"`, `{"q":"`+canary+`"}`)
		}, http.StatusOK, true, "fail-closed"},
	}
	const workers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := 1000*(w+1) + i
				k := kinds[(w+i)%len(kinds)]
				status, _, body := post(t, hs.URL, []byte(k.body(id)))
				if i := bytes.Index(body, []byte("data: ")); i >= 0 { // an SSE answer: its one event
					body = bytes.TrimSpace(body[i+len("data: "):])
				}
				var m struct {
					ID     json.RawMessage `json:"id"`
					Result *struct {
						IsError bool `json:"isError"`
					} `json:"result"`
				}
				err := json.Unmarshal(body, &m)
				switch {
				case err != nil || status != k.status:
					errs <- fmt.Sprintf("%s #%d: HTTP %d %.200s", k.name, id, status, body)
				case string(m.ID) != fmt.Sprint(id):
					errs <- fmt.Sprintf("%s #%d: answered with id %s", k.name, id, m.ID)
				case m.Result != nil && m.Result.IsError != k.isError:
					errs <- fmt.Sprintf("%s #%d: isError %v", k.name, id, m.Result.IsError)
				case !bytes.Contains(body, []byte(k.want)) || bytes.Contains(body, []byte(canary)):
					errs <- fmt.Sprintf("%s #%d: want %q and no caller value: %.300s", k.name, id, k.want, body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 10 {
			t.Error(e)
		}
	}
}
