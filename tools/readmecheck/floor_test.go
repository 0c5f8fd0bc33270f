package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The floor app in a real browser: a cook's morning round at the walk-in cooler, as the issue's
// proof walks it, with members of several roles (each invited and signed in as a person would).

// member is a person invited into the owner's organization with a role.
type member struct {
	email, password, token string
}

func (o *owner) member(t *testing.T, role string) member {
	t.Helper()
	m := member{email: strings.ToLower(fmt.Sprintf("floor-%s-%s-%d@example.com", role, strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())), password: "walk-in-cooler-pantry-9"}
	var s struct {
		AccessToken string `json:"accessToken"`
	}
	callAt(t, o.srv.API, "", "POST", "/auth/register", map[string]string{"name": "Sam " + role, "email": m.email, "password": m.password}, &s)
	var inv struct {
		Token string `json:"token"`
	}
	o.do(t, "POST", "invitations", map[string]any{"email": m.email, "role": role}, &inv)
	callAt(t, o.srv.API, s.AccessToken, "POST", "/invitations/accept", map[string]string{"token": inv.Token}, nil)
	m.token = s.AccessToken
	return m
}

// floorKitchen is the owner's walk-in: a cooler kept at 33–41 °F with milk and eggs in it, its
// tag, a probe that read 45 °F a minute ago, a temperature task due now and an overdue cleaning
// task; and a fryer with a tag of its own.
type floorKitchen struct {
	*owner
	cooler, milk, eggs string
	tag, fryerTag      string
	tempTask           string
}

func newFloorKitchen(t *testing.T, o *owner) *floorKitchen {
	t.Helper()
	k := &floorKitchen{owner: o}
	k.cooler = o.create(t, "storage-locations", map[string]any{"siteId": o.site, "name": "Walk-in cooler", "kind": "cooler", "minTempF": "33", "maxTempF": "41"})
	k.milk = o.create(t, "inventory-items", map[string]any{"name": "Whole milk", "category": "dairy", "baseUnit": "gal"})
	k.eggs = o.create(t, "inventory-items", map[string]any{"name": "Large eggs", "category": "dairy", "baseUnit": "dozen"})
	o.do(t, "POST", "stock/adjust", map[string]any{"siteId": o.site, "lines": []map[string]any{
		{"itemId": k.milk, "locationId": k.cooler, "quantity": "6", "unit": "gal", "reason": "opening_balance"},
		{"itemId": k.eggs, "locationId": k.cooler, "quantity": "10", "unit": "dozen", "reason": "opening_balance"},
	}}, nil)
	var tag struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	}
	o.do(t, "POST", "tags", map[string]any{"targetType": "storage_location", "targetId": k.cooler, "label": "Walk-in cooler"}, &tag)
	k.tag = tag.Code
	chicago, _ := time.LoadLocation("America/Chicago")
	now := time.Now().In(chicago)
	// Due a moment ago (today at the site, whatever the hour), with a grace of a day so it stays open.
	due := func(ago time.Duration) string {
		d := now.Add(-ago)
		if d.Day() != now.Day() {
			d = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, chicago)
		}
		return d.Format("2006-01-02 15:04:05-07:00")
	}
	k.tempTask = o.create(t, "tasks", map[string]any{"siteId": o.site, "title": "Log the walk-in temperature", "kind": "temperature_log",
		"dueAt": due(2 * time.Hour), "graceMinutes": 1440, "priority": "high", "requiresScan": true, "requiresTemp": true, "requiresPhoto": true,
		"tempRange": map[string]string{"minF": "33", "maxF": "41"}, "targetTagId": tag.ID})
	o.create(t, "tasks", map[string]any{"siteId": o.site, "title": "Wipe the door gaskets", "kind": "cleaning",
		"dueAt": due(time.Minute), "graceMinutes": 1440, "requiresScan": true, "targetTagId": tag.ID})

	// The probe, through a paired gateway.
	device := o.create(t, "devices", map[string]any{"name": "Gateway", "kind": "sensor_gateway", "siteId": o.site})
	var pair struct {
		Code string `json:"code"`
	}
	o.do(t, "POST", "devices/"+device+"/pair", nil, &pair)
	var paired struct {
		DeviceToken string `json:"deviceToken"`
	}
	callAt(t, o.srv.API, "", "POST", "/devices/pair", map[string]string{"code": pair.Code}, &paired)
	o.create(t, "sensors", map[string]any{"name": "Walk-in probe", "gatewayDeviceId": device, "externalId": "probe-1", "kind": "temperature",
		"siteId": o.site, "storageLocationId": k.cooler})
	body, _ := json.Marshal(map[string]any{"readings": []map[string]any{{"sensor": "probe-1", "at": time.Now().UTC().Add(-time.Minute), "value": "45", "unit": "F"}}})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", o.srv.API+"/device/readings", bytes.NewReader(body))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-device-token", paired.DeviceToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("readings: %v %v", res, err)
	}
	res.Body.Close()

	fryer := o.create(t, "equipment", map[string]any{"siteId": o.site, "name": "Fryer 1", "kind": "fryer"})
	o.create(t, "work-orders", map[string]any{"equipmentId": fryer, "title": "Thermostat sticks", "priority": "high"})
	o.do(t, "POST", "tags", map[string]any{"targetType": "equipment", "targetId": fryer}, &tag)
	k.fryerTag = tag.Code
	return k
}

// signedIn opens the tag's page in a new tab and signs in as the member.
func signedIn(t *testing.T, b *browser, srv *Server, code, email, password string) context.Context {
	t.Helper()
	ctx := b.tab()
	act(t, ctx, chromedp.Navigate(srv.base()+"/scan/"+code), chromedp.WaitVisible(chromedp.ID("email")))
	if eval[bool](t, ctx, `document.getElementById("signout").checkVisibility()`) {
		t.Fatal("Sign out shows while signed out")
	}
	act(t, ctx, chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("#signin button")), chromedp.WaitVisible(chromedp.ID("target")))
	if !eval[bool](t, ctx, `document.getElementById("signout").checkVisibility()`) {
		t.Fatal("no Sign out once signed in")
	}
	return ctx
}

// photo writes a small PNG to upload as a camera photo.
func photo(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for x := range 64 {
		for y := range 48 {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 120, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "walk-in.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// failFirstResponse makes the browser lose the answer to the first request whose URL matches
// pattern: the server has done the work, the page sees a network error, as on a kitchen's weak
// Wi-Fi. Later requests pass.
func failFirstResponse(t *testing.T, ctx context.Context, pattern string) *atomic.Int32 {
	t.Helper()
	var seen atomic.Int32
	paused := make(chan fetch.RequestID, 16)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			paused <- e.RequestID
		}
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for id := range paused {
			n := seen.Add(1)
			_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				if n == 1 {
					_, err := cdp.Call(ctx, tg, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionReset})
					return err
				}
				_, err := cdp.Call(ctx, tg, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
				return err
			}))
		}
	}()
	act(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: pattern, RequestStage: fetch.RequestStageResponse}}})
		return err
	}))
	return &seen
}

func TestBrowserFloorMorningRound(t *testing.T) {
	b := newBrowser(t)
	srv := hostedPages(t)
	o := newOwner(t, srv, "Harborview Kitchens")
	k := newFloorKitchen(t, o)
	cook := o.member(t, "inspector")

	// The cook scans the walk-in's tag: sign-in, then the card.
	ctx := signedIn(t, b, srv, k.tag, cook.email, cook.password)
	card := eval[map[string]any](t, ctx, `({name: document.getElementById("target-name").textContent,
		kind: document.getElementById("target-kind").textContent,
		temp: document.getElementById("temp").textContent, tempBad: document.getElementById("temp").classList.contains("temp-bad"),
		stock: document.getElementById("stock").textContent, tasks: document.querySelectorAll("#tasks > li").length,
		overdue: document.querySelectorAll("#tasks > li.overdue .badge-overdue").length,
		paths: /\/orgs\/|\/v1\//.test(document.getElementById("scan-app").innerText), focus: document.activeElement.id})`)
	if card["name"] != "Walk-in cooler" || card["kind"] != "Storage location" || !strings.Contains(card["temp"].(string), "45 °F") || card["tempBad"] != true ||
		!strings.Contains(card["stock"].(string), "Whole milk: 6 gal") || card["tasks"].(float64) != 2 || card["overdue"].(float64) < 1 || card["paths"] != false || card["focus"] != "target-name" {
		t.Fatalf("the card: %v", card)
	}
	review(t, ctx, "floor-target")

	// The temperature task: 45 °F is out of range, so the note is asked for before anything is saved.
	act(t, ctx, chromedp.SendKeys(chromedp.ID("task0-temp"), "45"), chromedp.WaitVisible(chromedp.ID("task0-temp-warn")),
		chromedp.Click(chromedp.CSS("#tasks > li:first-child form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("task0-note-error")))
	// The photo the task requires is missing too: both are said, and focus goes to the first.
	if got := eval[map[string]any](t, ctx, `({focus: document.activeElement.id, invalid: document.getElementById("task0-note").getAttribute("aria-invalid"),
		photo: !document.getElementById("task0-photo-error").hidden,
		label: document.querySelector("label[for=task0-note]").textContent})`); got["focus"] != "task0-photo" || got["invalid"] != "true" || got["photo"] != true || got["label"] != "Corrective action (required)" {
		t.Fatalf("out of range without a note: %v", got)
	}
	review(t, ctx, "floor-task-out-of-range")
	// The photo control is the page's own: a labelled button reached with the keyboard (Tab from
	// the unit lands on it, and it shows the focus), then the chosen photo named under it.
	act(t, ctx, chromedp.Focus(chromedp.ID("task0-unit")), chromedp.KeyEvent("\t"))
	if got := eval[map[string]any](t, ctx, `(() => { const b = document.getElementById("task0-photo-button"); const r = b.getBoundingClientRect();
		return {focus: document.activeElement.id, button: b.textContent, tag: b.tagName, for: b.htmlFor, outline: getComputedStyle(b).outlineStyle,
			height: r.height, name: document.getElementById("task0-photo-name").textContent}; })()`); got["focus"] != "task0-photo" ||
		got["button"] != "Take a photo" || got["tag"] != "LABEL" || got["for"] != "task0-photo" || got["outline"] != "solid" || got["height"].(float64) < 44 ||
		got["name"] != "No photo yet." {
		t.Fatalf("the photo control: %v", got)
	}
	note := "Door was left ajar; closed it, moved the milk to the reach-in."
	act(t, ctx, chromedp.SetUploadFiles(chromedp.ID("task0-photo"), []string{photo(t)}))
	if got := eval[[]string](t, ctx, `[document.getElementById("task0-photo-name").textContent, document.getElementById("task0-photo-button").textContent]`); got[0] != "Photo ready: walk-in.png" || got[1] != "Take another photo" {
		t.Fatalf("the chosen photo: %q", got)
	}
	act(t, ctx, chromedp.SendKeys(chromedp.ID("task0-note"), note),
		chromedp.Click(chromedp.CSS("#tasks > li:first-child form button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("#tasks > li:first-child .result.done")))
	var task struct {
		Status             string   `json:"status"`
		AttachmentMediaIDs []string `json:"attachmentMediaIds"`
		Evidence           struct {
			Scan struct {
				Code string `json:"code"`
			} `json:"scan"`
			Temperature struct {
				Value string `json:"value"`
				Unit  string `json:"unit"`
			} `json:"temperature"`
			Note       string `json:"note"`
			OutOfRange bool   `json:"outOfRange"`
		} `json:"evidence"`
		Photos []struct {
			ContentType string `json:"contentType"`
		} `json:"photos"`
	}
	o.do(t, "GET", "tasks/"+k.tempTask, nil, &task)
	if task.Status != "done" || task.Evidence.Scan.Code != k.tag || task.Evidence.Temperature.Value != "45" || task.Evidence.Temperature.Unit != "F" ||
		!task.Evidence.OutOfRange || task.Evidence.Note != note || len(task.AttachmentMediaIDs) != 1 || len(task.Photos) != 1 || task.Photos[0].ContentType != "image/png" {
		t.Fatalf("the task as the API has it: %+v", task)
	}
	if focus := eval[string](t, ctx, `document.activeElement.className`); !strings.Contains(focus, "done") {
		t.Fatalf("focus after completing: %q", focus)
	}
	review(t, ctx, "floor-task-done")

	// Count: no sheet is open, so the cook starts one; a number is saved when the field is left.
	act(t, ctx, chromedp.Click(chromedp.ID("count-start")), chromedp.WaitVisible(chromedp.ID("count-0")),
		chromedp.SendKeys(chromedp.ID("count-0"), "4.5\t"))
	waitFor(t, 10*time.Second, "the count line saved", func() bool {
		return eval[string](t, ctx, `document.getElementById("count-0-status").textContent`) == "Saved"
	})
	var counts []struct {
		ID    string `json:"id"`
		Lines []struct {
			ItemID   string `json:"itemId"`
			Quantity string `json:"quantity"`
			Unit     string `json:"unit"`
		} `json:"lines"`
	}
	o.do(t, "GET", "counts?status=open", nil, &counts)
	item := eval[string](t, ctx, `document.querySelector("label[for=count-0]").textContent`)
	want := map[string]string{"Whole milk": k.milk, "Large eggs": k.eggs}[item]
	if len(counts) != 1 || len(counts[0].Lines) != 1 || counts[0].Lines[0].ItemID != want || counts[0].Lines[0].Quantity != "4.5" {
		t.Fatalf("the count as the API has it (%s): %+v", item, counts)
	}
	if eval[bool](t, ctx, `!document.getElementById("count-close-row").hidden`) {
		t.Fatal("a cook may not close the count, yet the control shows")
	}
	review(t, ctx, "floor-count")

	// Waste, on a connection that drops the first answer: the form stays filled, and the second
	// tap sends the same submission again, which the API answers once.
	seen := failFirstResponse(t, ctx, "*/waste-logs")
	act(t, ctx, chromedp.SendKeys(chromedp.ID("waste-search"), "milk"))
	waitFor(t, 10*time.Second, "the item search", func() bool {
		return eval[bool](t, ctx, `document.getElementById("waste-item").value !== "" && document.getElementById("waste-item").selectedOptions[0].textContent === "Whole milk"`)
	})
	act(t, ctx, chromedp.SendKeys(chromedp.ID("waste-qty"), "0.5"), chromedp.SetValue(chromedp.ID("waste-reason"), "expired"),
		chromedp.Click(chromedp.CSS("#waste-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("waste-error")))
	if got := eval[map[string]any](t, ctx, `({qty: document.getElementById("waste-qty").value, reason: document.getElementById("waste-reason").value,
		error: document.getElementById("waste-error").textContent})`); got["qty"] != "0.5" || got["reason"] != "expired" || !strings.HasPrefix(got["error"].(string), "Not sent: no connection.") {
		t.Fatalf("after the lost answer: %v", got)
	}
	review(t, ctx, "floor-waste-offline")
	act(t, ctx, chromedp.Click(chromedp.CSS("#waste-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("waste-result")))
	if n := seen.Load(); n != 2 {
		t.Fatalf("%d waste requests reached the network", n)
	}
	var wastes []struct {
		ItemID     string `json:"itemId"`
		LocationID string `json:"locationId"`
		Quantity   string `json:"quantity"`
		Unit       string `json:"unit"`
		Reason     string `json:"reason"`
	}
	o.do(t, "GET", "waste-logs", nil, &wastes)
	if len(wastes) != 1 || wastes[0].ItemID != k.milk || wastes[0].LocationID != k.cooler || wastes[0].Quantity != "0.5" || wastes[0].Unit != "gal" || wastes[0].Reason != "expired" {
		t.Fatalf("waste as the API has it: %+v", wastes)
	}
	waitFor(t, 10*time.Second, "the stock read again", func() bool {
		return strings.Contains(eval[string](t, ctx, `document.getElementById("stock").textContent`), "Whole milk: 5.5 gal")
	})
	review(t, ctx, "floor-waste-logged")

	// A viewer sees the card and the tasks, and no control that writes.
	viewer := o.member(t, "viewer")
	vctx := signedIn(t, b, srv, k.tag, viewer.email, viewer.password)
	if got := eval[map[string]any](t, vctx, `({forms: [...document.querySelectorAll("#target form")].filter((f) => !f.hidden && !f.closest("[hidden]")).length,
		buttons: [...document.querySelectorAll("#target button")].filter((b) => b.offsetParent !== null).map((b) => b.textContent),
		inputs: [...document.querySelectorAll("#target input, #target select, #target textarea")].filter((b) => b.offsetParent !== null).length,
		tasks: document.querySelectorAll("#tasks > li").length, note: !document.getElementById("no-actions").hidden})`); got["forms"].(float64) != 0 ||
		len(got["buttons"].([]any)) != 0 || got["inputs"].(float64) != 0 || got["tasks"].(float64) != 1 || got["note"] != true {
		t.Fatalf("the viewer's page: %v", got)
	}
	review(t, vctx, "floor-viewer")

	// An admin at the fryer: its open work order, a problem reported, then the tag retired after
	// a confirmation.
	admin := o.member(t, "admin")
	actx := signedIn(t, b, srv, k.fryerTag, admin.email, admin.password)
	act(t, actx, chromedp.WaitVisible(chromedp.ID("problem-form")))
	if got := eval[string](t, actx, `document.getElementById("work-orders").textContent`); !strings.Contains(got, "Thermostat sticks") {
		t.Fatalf("work orders: %q", got)
	}
	// With a photo from the camera, on a connection that drops the answer to the photo's upload:
	// the work order is opened once, and the second tap attaches the photo once.
	seenPhoto := failFirstResponse(t, actx, "*/work-orders/*/photos")
	act(t, actx, chromedp.SendKeys(chromedp.ID("problem-title"), "Oil smokes at 350 °F"), chromedp.SendKeys(chromedp.ID("problem-description"), "Started during lunch."),
		chromedp.SetUploadFiles(chromedp.ID("problem-photo"), []string{photo(t)}),
		chromedp.Click(chromedp.CSS("#problem-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("problem-error")))
	if got := eval[map[string]any](t, actx, `({title: document.getElementById("problem-title").value, error: document.getElementById("problem-error").textContent,
		photo: document.getElementById("problem-photo").files.length})`); got["title"] != "Oil smokes at 350 °F" || got["photo"].(float64) != 1 ||
		!strings.HasPrefix(got["error"].(string), "Not sent: no connection.") {
		t.Fatalf("after the lost answer: %v", got)
	}
	act(t, actx, chromedp.Click(chromedp.CSS("#problem-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("problem-result")))
	if n := seenPhoto.Load(); n != 2 {
		t.Fatalf("%d photo uploads reached the network", n)
	}
	if got := eval[string](t, actx, `document.getElementById("problem-result").textContent`); got != "Reported with the photo: a work order is open." {
		t.Fatalf("the problem's result: %q", got)
	}
	var orders []struct {
		ID, Title, Description, Status string
	}
	o.do(t, "GET", "work-orders?status=open", nil, &orders)
	if len(orders) != 2 || orders[0].Title != "Oil smokes at 350 °F" || orders[0].Description != "Started during lunch." {
		t.Fatalf("work orders as the API has them: %+v", orders)
	}
	var reported struct {
		Photos []struct {
			ContentType string `json:"contentType"`
			Filename    string `json:"filename"`
		} `json:"photos"`
	}
	o.do(t, "GET", "work-orders/"+orders[0].ID, nil, &reported)
	if len(reported.Photos) != 1 || reported.Photos[0].ContentType != "image/png" || reported.Photos[0].Filename != "walk-in.png" {
		t.Fatalf("the reported work order's photos: %+v", reported.Photos)
	}
	review(t, actx, "floor-equipment")
	act(t, actx, chromedp.Click(chromedp.ID("retire")), chromedp.WaitVisible(chromedp.ID("retire-confirm")))
	if focus := eval[string](t, actx, `document.activeElement.id`); focus != "retire-question" {
		t.Fatalf("focus on the confirmation: %q", focus)
	}
	review(t, actx, "floor-retire-confirm")
	act(t, actx, chromedp.Click(chromedp.ID("retire-confirm")), chromedp.WaitVisible(chromedp.ID("problem")))
	if h := eval[string](t, actx, `document.getElementById("problem-heading").textContent`); h != "Tag retired" {
		t.Fatalf("after retiring: %q", h)
	}
	var tags []struct {
		Code string `json:"code"`
	}
	o.do(t, "GET", "tags", nil, &tags)
	for _, tg := range tags {
		if tg.Code == k.fryerTag {
			t.Fatal("the retired tag is still listed")
		}
	}
	// The manager's walk-in page offers the adjustment and the count's close.
	manager := o.member(t, "manager")
	mctx := signedIn(t, b, srv, k.tag, manager.email, manager.password)
	if got := eval[map[string]bool](t, mctx, `({adjust: !document.getElementById("adjust-card").hidden, close: !document.getElementById("count-close-row").hidden,
		retire: !document.getElementById("retire-card").hidden})`); !got["adjust"] || !got["close"] || !got["retire"] {
		t.Fatalf("the manager's page: %v", got)
	}
	review(t, mctx, "floor-manager")

	// Spanish: the toggle on the cook's phone translates the page in place and is kept.
	act(t, ctx, chromedp.Click(chromedp.CSS(`.lang-toggle [data-lang="es"]`)))
	assertNoEnglish(t, ctx, "floor-es")
	if got := eval[string](t, ctx, `document.getElementById("tasks-heading").textContent`); got != "Tareas pendientes aquí" {
		t.Fatalf("tasks heading in Spanish: %q", got)
	}
	review(t, ctx, "floor-es")
	// The choice is kept on the phone: the page opens again in Spanish, and so does sign-in.
	act(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("target")))
	assertNoEnglish(t, ctx, "floor-target-es")
	act(t, ctx, chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("email")))
	if eval[bool](t, ctx, `document.getElementById("signout").checkVisibility()`) {
		t.Fatal("Sign out shows after signing out")
	}
	assertNoEnglish(t, ctx, "floor-signin-es")
	review(t, ctx, "floor-signin-es")
	act(t, ctx, chromedp.SendKeys(chromedp.ID("email"), cook.email), chromedp.SendKeys(chromedp.ID("password"), cook.password),
		chromedp.Click(chromedp.CSS("#signin button")), chromedp.WaitVisible(chromedp.ID("target")))
	if got := eval[string](t, ctx, `location.pathname + " " + document.getElementById("target-name").textContent`); got != "/scan/"+k.tag+" Walk-in cooler" {
		t.Fatalf("back to the tag after signing in again: %q", got)
	}
}
