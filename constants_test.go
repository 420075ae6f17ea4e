// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package sockstate

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readTable returns the rows of a whitespace-separated table in testdata,
// without its comments and blank lines.
func readTable(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Fields(line))
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestConstantsMatchWinsock2(t *testing.T) {
	goValues := map[string]uint64{
		"SOCK_NOTIFY_REGISTER_EVENT_NONE":   SOCK_NOTIFY_REGISTER_EVENT_NONE,
		"SOCK_NOTIFY_REGISTER_EVENT_IN":     SOCK_NOTIFY_REGISTER_EVENT_IN,
		"SOCK_NOTIFY_REGISTER_EVENT_OUT":    SOCK_NOTIFY_REGISTER_EVENT_OUT,
		"SOCK_NOTIFY_REGISTER_EVENT_HANGUP": SOCK_NOTIFY_REGISTER_EVENT_HANGUP,
		"SOCK_NOTIFY_REGISTER_EVENTS_ALL":   SOCK_NOTIFY_REGISTER_EVENTS_ALL,
		"SOCK_NOTIFY_EVENT_IN":              SOCK_NOTIFY_EVENT_IN,
		"SOCK_NOTIFY_EVENT_OUT":             SOCK_NOTIFY_EVENT_OUT,
		"SOCK_NOTIFY_EVENT_HANGUP":          SOCK_NOTIFY_EVENT_HANGUP,
		"SOCK_NOTIFY_EVENT_ERR":             SOCK_NOTIFY_EVENT_ERR,
		"SOCK_NOTIFY_EVENT_REMOVE":          SOCK_NOTIFY_EVENT_REMOVE,
		"SOCK_NOTIFY_EVENTS_ALL":            SOCK_NOTIFY_EVENTS_ALL,
		"SOCK_NOTIFY_OP_NONE":               SOCK_NOTIFY_OP_NONE,
		"SOCK_NOTIFY_OP_ENABLE":             SOCK_NOTIFY_OP_ENABLE,
		"SOCK_NOTIFY_OP_DISABLE":            SOCK_NOTIFY_OP_DISABLE,
		"SOCK_NOTIFY_OP_REMOVE":             SOCK_NOTIFY_OP_REMOVE,
		"SOCK_NOTIFY_TRIGGER_ONESHOT":       SOCK_NOTIFY_TRIGGER_ONESHOT,
		"SOCK_NOTIFY_TRIGGER_PERSISTENT":    SOCK_NOTIFY_TRIGGER_PERSISTENT,
		"SOCK_NOTIFY_TRIGGER_LEVEL":         SOCK_NOTIFY_TRIGGER_LEVEL,
		"SOCK_NOTIFY_TRIGGER_EDGE":          SOCK_NOTIFY_TRIGGER_EDGE,
		"SOCK_NOTIFY_TRIGGER_ALL":           SOCK_NOTIFY_TRIGGER_ALL,
	}
	seen := make(map[string]bool)
	for _, row := range readTable(t, "constants.txt") {
		if len(row) != 2 {
			t.Fatalf("constants.txt: malformed row %q", row)
		}
		name := row[0]
		want, err := strconv.ParseUint(row[1], 0, 64)
		if err != nil {
			t.Fatalf("constants.txt: %s: %v", name, err)
		}
		if seen[name] {
			t.Errorf("constants.txt lists %s twice", name)
		}
		seen[name] = true
		got, ok := goValues[name]
		switch {
		case !ok:
			t.Errorf("winsock2.h has %s = %#x; constants.go lacks it", name, want)
		case got != want:
			t.Errorf("%s = %#x; winsock2.h has %#x", name, got, want)
		}
	}
	for name := range goValues {
		if !seen[name] {
			t.Errorf("constants.go has %s, which testdata/constants.txt (winsock2.h) lacks", name)
		}
	}
}
