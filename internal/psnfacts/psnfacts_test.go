// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package psnfacts

import (
	"os"
	"testing"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnmodel"
)

func TestMain(m *testing.M) {
	Child() // the questions asked in a process of their own
	os.Exit(m.Run())
}

// TestRecord asks every question. Against the reference model each answer
// must be the value of its switch; on Windows the answers are logged (and
// internal/cmd/psnfacts prints them for the workflow to keep).
func TestRecord(t *testing.T) {
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		t.Skip(err)
	}
	facts, err := Record()
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != len(questions) {
		t.Fatalf("%d answers to %d questions", len(facts), len(questions))
	}
	for _, f := range facts {
		t.Logf("%s: %s (%s)", f.Switch, f.Answer, f.Detail)
		if m := psnmodel.Active; m != nil && f.Answer != m.Switch(f.Switch) {
			t.Errorf("%s: the recorder says %q, the model's switch is %q (%s)", f.Switch, f.Answer, m.Switch(f.Switch), f.Detail)
		}
	}
}
