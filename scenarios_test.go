// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package sockstate_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
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

// TestExamplesPrint runs the examples that need the real call, which have
// no Output line (so that "go test" passes where the call is missing), to
// their end, and checks what each prints: on Windows 20348+, and against
// the reference model.
func TestExamplesPrint(t *testing.T) {
	requireAPI(t)
	for _, tt := range []struct {
		name    string
		example func()
		want    string
	}{
		{"ExampleProcess", ExampleProcess, "7 IN\n"},
		{"Example_pollReplacement", Example_pollReplacement, "received all 4000 bytes: true\n"},
		{"Example_edgeTriggeredUDP", Example_edgeTriggeredUDP, "received 10 datagrams\n"},
		{"Example_multiThreadedServer", Example_multiThreadedServer, "100 clients sent 4000 bytes, all received\n"},
	} {
		if got := stdoutOf(t, tt.example); got != tt.want {
			t.Errorf("%s printed %q, want %q", tt.name, got, tt.want)
		}
	}
}

// stdoutOf returns what f prints to os.Stdout.
func stdoutOf(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()
	f()
	w.Close()
	return <-out
}
