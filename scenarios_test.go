// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/sockstate/sockstate"
)

// The three scenarios of Microsoft's "Winsock socket state notifications"
// page, run as tests through the code of their examples. They need the real
// ProcessSocketNotifications.

func requireAPI(t *testing.T) {
	t.Helper()
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		t.Skip(err) // the error names the export and both builds
	}
}

func TestScenarioPollReplacement(t *testing.T) {
	requireAPI(t)
	payload := make([]byte, 64<<10)
	for i := range payload {
		payload[i] = byte(rand.Uint32())
	}
	got, err := pollReplacement(payload)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("received %d bytes that differ from the %d sent", len(got), len(payload))
	}
}

func TestScenarioEdgeTriggeredUDP(t *testing.T) {
	requireAPI(t)
	got, err := edgeTriggeredUDP(200)
	if err != nil {
		t.Fatal(err)
	}
	if got != 200 {
		t.Fatalf("received %d datagrams, want 200", got)
	}
}

func TestScenarioMultiThreadedServer(t *testing.T) {
	requireAPI(t)
	got, err := multiThreadedServer(100, 50, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * 50 * messageSize; got != want {
		t.Fatalf("received %d bytes, want %d", got, want)
	}
}
