package httpapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func (w *walker) create(collection string, body any) string {
	w.env.T.Helper()
	var out struct {
		ID string `json:"id"`
	}
	w.ownerCall(http.MethodPost, collection).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

func (w *walker) ownerCall(method, path string) *apitest.Request {
	return w.env.Call(method, "orgs/"+w.orgID.String()+"/"+path).Token(w.owner.AccessToken)
}

// tag prints a tag for equipment at site A and returns its id and code.
func (w *walker) tag() (id, code string) {
	w.env.T.Helper()
	var out struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	}
	w.ownerCall(http.MethodPost, "tags").JSON(map[string]any{"targetType": "equipment", "label": "Walk-in cooler", "siteId": w.siteA}).
		Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID, out.Code
}

// media uploads an image for site A's boards and returns its key.
func (w *walker) media() string {
	w.env.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("siteId", w.siteA.String())
	part, _ := mw.CreateFormFile("file", "walk.png")
	_, _ = part.Write(onePixelPNG)
	_ = mw.Close()
	var out struct {
		Key string `json:"key"`
	}
	w.ownerCall(http.MethodPost, "media").Raw(mw.FormDataContentType(), buf.Bytes()).Do().Expect(http.StatusCreated).Decode(&out)
	return out.Key
}

// admit admits a new patient at site A with a diet order (and the extra ODS segments given)
// and returns the patient's id and the order's.
func (w *walker) admit(extra ...string) (patientID, dietOrderID string) {
	w.env.T.Helper()
	n := uuid.NewString()[:8]
	msg := "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01|WALK" + n + "|P|2.5.1\r" +
		"EVN|A01|20260302083000\r" +
		"PID|1||W" + n + "^^^HMC^MR||DOE^JANE||19800412|F\r" +
		"PV1|1|I|4W^412^A\r" +
		"ODS|D||CCHO^Consistent Carbohydrate^EPICDIET\r" + strings.Join(extra, "")
	var res struct {
		Results []struct {
			Outcome string `json:"outcome"`
			Detail  struct {
				PatientID string `json:"patientId"`
			} `json:"detail"`
		} `json:"results"`
	}
	w.ownerCall(http.MethodPost, "adt/hl7").JSON(map[string]any{"siteId": w.siteA, "message": msg}).
		Do().Expect(http.StatusOK).Decode(&res)
	if len(res.Results) != 1 || res.Results[0].Outcome != "applied" {
		w.env.T.Fatalf("fixture admission: %+v", res)
	}
	var patient struct {
		DietOrders []struct {
			ID string `json:"id"`
		} `json:"dietOrders"`
	}
	w.ownerCall(http.MethodGet, "patients/"+res.Results[0].Detail.PatientID).Do().Expect(http.StatusOK).Decode(&patient)
	if len(patient.DietOrders) == 0 {
		w.env.T.Fatalf("fixture patient has no diet order")
	}
	return res.Results[0].Detail.PatientID, patient.DietOrders[0].ID
}

func (w *walker) patient() (patientID, dietOrderID string) {
	w.env.T.Helper()
	return w.admit()
}

// unmappedCode admits a patient at site A carrying a diet code nothing recognises, and returns
// the code.
func (w *walker) unmappedCode() string {
	w.env.T.Helper()
	code := fmt.Sprintf("WALKSITEA%s", strings.ToUpper(uuid.NewString()[:6]))
	w.admit("ODS|D||" + code + "^Walk diet^LOCAL\r")
	return code
}
