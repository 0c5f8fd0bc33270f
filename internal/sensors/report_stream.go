package sensors

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/sous-app/sous/gen/api"
)

// streamedLog answers a temperature log in JSON or CSV written straight to the client: the
// generated JSON response encodes the whole body into a buffer first, which for the heaviest
// log (185,472 buckets) is some 25 MB held per request on top of the log itself. JSON goes out
// one sensor at a time, CSV a few kilobytes at a time. release frees the request's heavy-report
// slot (if any) once the body is written, whatever happens to the write.
type streamedLog struct {
	log     api.TemperatureLog
	loc     *time.Location
	media   string
	release func()
}

func (s *streamedLog) VisitGetTemperatureLogResponse(w http.ResponseWriter) error {
	defer s.release()
	if s.media == mediaCSV {
		w.Header().Set("Content-Type", mediaCSV)
		w.Header().Set("Content-Disposition", logDisposition(s.log, "csv"))
		w.WriteHeader(http.StatusOK)
		return writeLogCSV(w, s.log, s.loc)
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(http.StatusOK)
	return writeLogJSON(w, s.log)
}

// writeLogJSON writes log as encoding/json would, but for its sensors, which it encodes and
// writes one by one.
func writeLogJSON(w http.ResponseWriter, log api.TemperatureLog) error {
	sensors := log.Sensors
	log.Sensors = []api.TemperatureLogSensor{}
	head, err := json.Marshal(log)
	if err != nil {
		return err
	}
	// head ends with "sensors":[]} or with more fields after it; split at the empty array.
	const empty = `"sensors":[]`
	i := bytes.Index(head, []byte(empty))
	if i < 0 {
		_, err := w.Write(append(head, '\n'))
		return err
	}
	if _, err := w.Write(head[:i+len(empty)-1]); err != nil {
		return err
	}
	for n, s := range sensors {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if n > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err = w.Write(append(append([]byte{}, head[i+len(empty)-1:]...), '\n'))
	return err
}
