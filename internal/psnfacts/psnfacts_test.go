// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build windows

package psnfacts

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sockstate/sockstate"
	"github.com/sockstate/sockstate/internal/psnmodel"
)

func TestMain(m *testing.M) {
	Child() // the questions asked in a process of their own
	os.Exit(m.Run())
}

// answers are the answers Record gives to each question: model, the
// values of the reference model's switch of that name
// (testdata/psnmodel/SPEC.md, Switches), and other, those that no value of
// the switch stands for, which the recorder tells apart so that a Windows
// run names an answer the model lacks. The model's runs, once per value
// of every switch (scripts/test.sh), keep model complete: an answer that
// is not here fails them.
var answers = map[string]struct{ model, other []string }{
	"trigger":       {[]string{"persistent", "refuse"}, nil},
	"remove_packet": {[]string{"alone", "coalesced"}, nil},
	"remove_closed": {[]string{"entry", "call"}, []string{"accepted"}},
	"second_port":   {[]string{"refuse", "ignore", "move"}, []string{"lost"}},
	"empty_call":    {[]string{"ok", "einval"}, []string{"error"}},
	"level":         {[]string{"dequeue", "change"}, nil},
	"result":        {[]string{"zero", "one"}, []string{"error"}},
	"overlapped":    {[]string{"null", "junk"}, nil},
	"tied_socket":   {[]string{"accept", "refuse"}, []string{"lost", "crash"}},
}

// TestRecord asks every question and checks the record: one fact for each
// question, in order, each with what was seen and an answer the recorder
// knows. Against the reference model each answer must be the value of its
// switch in force, and the model's switches must be the questions. On
// Windows the answers are logged (internal/cmd/psnfacts prints them for
// the workflow to keep), and an answer that no value of the model's switch
// stands for fails: the model then lacks what Windows does.
func TestRecord(t *testing.T) {
	if err := sockstate.LoadProcessSocketNotifications(); err != nil {
		t.Skip(err)
	}
	if len(answers) != len(questions) {
		t.Fatalf("answers has %d questions, the recorder %d", len(answers), len(questions))
	}
	facts, err := Record()
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != len(questions) {
		t.Fatalf("%d answers to %d questions", len(facts), len(questions))
	}
	m := psnmodel.Active
	for i, f := range facts {
		t.Logf("%s: %s (%s)", f.Switch, f.Answer, f.Detail)
		if f.Switch != questions[i].name {
			t.Errorf("fact %d answers %q, want question %q", i, f.Switch, questions[i].name)
			continue
		}
		if f.Detail == "" {
			t.Errorf("%s: answer %q with nothing seen", f.Switch, f.Answer)
		}
		known := answers[f.Switch]
		switch {
		case m != nil:
			if want := m.Switch(f.Switch); f.Answer != want {
				t.Errorf("%s: the recorder says %q, the model's switch is %q (%s)", f.Switch, f.Answer, want, f.Detail)
			}
			if !slices.Contains(known.model, f.Answer) {
				t.Errorf("%s: the model answered %q, which answers does not list among %v", f.Switch, f.Answer, known.model)
			}
		case slices.Contains(known.other, f.Answer):
			t.Errorf("%s: Windows answered %q (%s), which no value of the model's switch (%v) stands for: the model and testdata/psnmodel/SPEC.md need it",
				f.Switch, f.Answer, f.Detail, known.model)
		case !slices.Contains(known.model, f.Answer):
			t.Errorf("%s: answer %q is none the recorder knows (%v, %v)", f.Switch, f.Answer, known.model, known.other)
		}
	}
	if m == nil {
		return
	}
	var switches, asked []string
	for _, kv := range strings.Split(m.Switches, ",") {
		name, _, _ := strings.Cut(kv, "=")
		switches = append(switches, name)
	}
	for _, q := range questions {
		asked = append(asked, q.name)
	}
	slices.Sort(switches)
	slices.Sort(asked)
	if !slices.Equal(switches, asked) {
		t.Errorf("the model's switches are %v, the recorder asks %v", switches, asked)
	}
}
