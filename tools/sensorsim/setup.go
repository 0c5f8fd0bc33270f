package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"
)

func signIn(ctx context.Context, c *client, login string) error {
	email, password, _ := strings.Cut(login, ":")
	var session struct {
		AccessToken string `json:"accessToken"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/auth/login", nil, map[string]string{"email": email, "password": password}, &session); err != nil {
		return err
	}
	c.token = session.AccessToken
	return nil
}

// setUp signs in and builds the fleet through the API: the site (unless -site), its three
// places, the gateways (paired and claimed) and their sensors.
func setUp(ctx context.Context, c *client, o *options) ([]*gateway, error) {
	gatewayClient.base = c.base
	if err := signIn(ctx, c, o.login); err != nil {
		return nil, err
	}
	if o.org == "" {
		var me struct {
			Memberships []struct {
				OrgID string `json:"orgId"`
			} `json:"memberships"`
		}
		if err := c.do(ctx, http.MethodGet, "/v1/auth/me", nil, nil, &me); err != nil {
			return nil, err
		}
		if len(me.Memberships) == 0 {
			return nil, errors.New("the user has no organization")
		}
		o.org = me.Memberships[0].OrgID
	}
	org := "/v1/orgs/" + o.org
	var id struct {
		ID string `json:"id"`
	}
	if o.site == "" {
		body := map[string]string{"name": fmt.Sprintf("Sensor kitchen %d", time.Now().Unix()), "timezone": "America/Chicago"}
		if err := c.do(ctx, http.MethodPost, org+"/sites", nil, body, &id); err != nil {
			return nil, err
		}
		o.site = id.ID
	}
	locations := make([]string, len(places))
	for i, p := range places {
		kind := "cooler"
		if p.maxF <= 32 {
			kind = "freezer"
		}
		body := map[string]any{"siteId": o.site, "name": fmt.Sprintf("%s %d", p.name, time.Now().UnixNano()%100000), "kind": kind,
			"minTempF": fmt.Sprint(p.minF), "maxTempF": fmt.Sprint(p.maxF)}
		if err := c.do(ctx, http.MethodPost, org+"/storage-locations", nil, body, &id); err != nil {
			return nil, err
		}
		locations[i] = id.ID
	}
	rng := rand.New(rand.NewPCG(o.seed, 1))
	fleet := make([]*gateway, o.gateways)
	for g := range fleet {
		gw := &gateway{name: fmt.Sprintf("Gateway %d", g+1)}
		body := map[string]any{"name": gw.name, "kind": "sensor_gateway", "siteId": o.site,
			"config": map[string]any{"reportIntervalSeconds": int(o.every / time.Second)}}
		if err := c.do(ctx, http.MethodPost, org+"/devices", nil, body, &id); err != nil {
			return nil, err
		}
		deviceID := id.ID
		var code struct {
			Code string `json:"code"`
		}
		if err := c.do(ctx, http.MethodPost, org+"/devices/"+deviceID+"/pair", nil, nil, &code); err != nil {
			return nil, err
		}
		var claim struct {
			DeviceToken string `json:"deviceToken"`
		}
		from := http.Header{"X-Forwarded-For": {fmt.Sprintf("10.77.%d.%d", (g>>8)&0xff, g&0xff)}}
		if err := claimCode(ctx, from, code.Code, &claim); err != nil {
			return nil, err
		}
		gw.token = claim.DeviceToken
		gw.door = &door{ext: "door-1", perHour: 3, rng: rand.New(rand.NewPCG(o.seed, uint64(1000+g)))}
		doorBody := map[string]any{"name": fmt.Sprintf("%s walk-in door", gw.name), "gatewayDeviceId": deviceID, "externalId": gw.door.ext,
			"kind": "door", "siteId": o.site, "storageLocationId": locations[0]}
		if err := c.do(ctx, http.MethodPost, org+"/sensors", nil, doorBody, nil); err != nil {
			return nil, err
		}
		for i := range o.probes {
			pi := (g + i) % len(places)
			p := &probe{ext: fmt.Sprintf("probe-%d", i+1), place: places[pi],
				phase: time.Duration(rng.Int64N(int64(places[pi].defrostEach))), rng: rand.New(rand.NewPCG(o.seed, uint64(g*1000+i)))}
			body := map[string]any{"name": fmt.Sprintf("%s probe %d", gw.name, i+1), "gatewayDeviceId": deviceID, "externalId": p.ext,
				"kind": "temperature", "siteId": o.site, "storageLocationId": locations[pi]}
			if err := c.do(ctx, http.MethodPost, org+"/sensors", nil, body, nil); err != nil {
				return nil, err
			}
			gw.probes = append(gw.probes, p)
		}
		fleet[g] = gw
	}
	return fleet, nil
}

// claimCode claims a pairing code as the gateway does. Claims are limited per client address
// (10 a minute unless the server believes X-Forwarded-For): on a 429 it waits the Retry-After
// and claims again, so a fleet pairs at the pace the server allows rather than failing.
func claimCode(ctx context.Context, from http.Header, code string, claim any) error {
	for {
		err := gatewayClient.do(ctx, http.MethodPost, "/v1/devices/pair", from, map[string]string{"code": code}, claim)
		var se *statusError
		if !errors.As(err, &se) || se.status != http.StatusTooManyRequests {
			return err
		}
		wait := min(max(se.retryAfter, time.Second), 2*time.Minute)
		fmt.Fprintf(os.Stderr, "sensorsim: pairing is limited per client address (set SOUS_TRUSTED_PROXIES=127.0.0.1/32 on the server to lift it); waiting %s\n", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
