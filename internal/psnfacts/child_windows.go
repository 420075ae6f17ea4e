// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

package psnfacts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/windows"
)

// envQuestion names the question that a process started by inChild
// answers.
const envQuestion = "SOCKSTATE_PSNFACTS_QUESTION"

// couldNotAsk is the exit status of a process that could not ask its
// question (the runtime's own fatal errors exit with 2).
const couldNotAsk = 3

// inChildren are the questions whose answer may end the process that asks
// them.
var inChildren = map[string]func(port windows.Handle) (Fact, error){
	"tied_socket": tiedSocket,
}

// inChild asks the question name in a new process of the running
// executable, which must call Child first. A process that ends without an
// answer is an answer too: "crash", with its exit status and first lines
// of output.
func inChild(name string) func(windows.Handle) (Fact, error) {
	return func(windows.Handle) (Fact, error) {
		exe, err := os.Executable()
		if err != nil {
			return Fact{}, err
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), envQuestion+"="+name)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		answer, detail, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == couldNotAsk:
			return Fact{}, errors.New(strings.TrimSpace(stderr.String()))
		case errors.As(err, &exit):
			lines := strings.SplitN(stderr.String(), "\n", 4)
			return Fact{Answer: "crash", Detail: fmt.Sprintf("the process that asked ended with %v: %s",
				exit, strings.Join(lines[:min(len(lines), 3)], " / "))}, nil
		case err != nil:
			return Fact{}, err
		case !ok:
			return Fact{}, fmt.Errorf("the process that asked printed %q", out)
		}
		return Fact{Answer: answer, Detail: detail}, nil
	}
}

// Child answers the question of inChild and exits, in a process that
// inChild started; elsewhere it returns at once. The main function of a
// program that calls Record, and TestMain of its tests, call it first.
func Child() {
	name := os.Getenv(envQuestion)
	if name == "" {
		return
	}
	ask := inChildren[name]
	if ask == nil {
		fmt.Fprintf(os.Stderr, "psnfacts: no question %q\n", name)
		os.Exit(couldNotAsk)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "psnfacts:", err)
		os.Exit(couldNotAsk)
	}
	f, err := ask(port)
	if err != nil {
		fmt.Fprintf(os.Stderr, "psnfacts: %s: %v\n", name, err)
		os.Exit(couldNotAsk)
	}
	fmt.Printf("%s\t%s\n", f.Answer, strings.ReplaceAll(f.Detail, "\n", " "))
	os.Exit(0)
}
