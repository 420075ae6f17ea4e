// Copyright 2026 The sockstate Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause

//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The turns' protocol, between connload and a copy of itself for one
// server (-turn), on the copy's standard input and output, a line each:
// the copy says "ready" after its set-up; then "go" has it echo for -block
// and say "done", and "end" has it write its figures' line; then it holds
// its connections until its input ends.

// runTurn is a copy's side: the load on one server, driven by in.
func runTurn(c config, in io.Reader, out io.Writer) error {
	s, err := prepare(c)
	if err != nil {
		return err
	}
	defer s.close()
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var reply string
		switch cmd := lines.Text(); cmd {
		case "go":
			if err := s.echo(c.block); err != nil {
				return err
			}
			reply = "done"
		case "end":
			if reply, err = s.line(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("-turn: %q on standard input, not go or end", cmd)
		}
		if _, err := fmt.Fprintln(out, reply); err != nil {
			return err
		}
	}
	return lines.Err()
}

// copyOf is a copy of connload that takes turns.
type copyOf struct {
	addr  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

// say sends the copy cmd and returns its answer.
func (p *copyOf) say(cmd string) (string, error) {
	if cmd != "" {
		if _, err := fmt.Fprintln(p.in, cmd); err != nil {
			return "", p.failed(err)
		}
	}
	if !p.lines.Scan() {
		return "", p.failed(errors.Join(p.lines.Err(), io.ErrUnexpectedEOF))
	}
	return p.lines.Text(), nil
}

// expect sends the copy cmd ("": none) and checks that it answers want.
func (p *copyOf) expect(cmd, want string) error {
	got, err := p.say(cmd)
	if err == nil && got != want {
		err = fmt.Errorf("the load on %s said %q, not %s", p.addr, got, want)
	}
	return err
}

// failed is the error of a copy that stopped answering: its exit status,
// whose reason it wrote on connload's standard error.
func (p *copyOf) failed(err error) error {
	p.in.Close()
	if werr := p.cmd.Wait(); werr != nil {
		err = werr
	}
	return fmt.Errorf("the load on %s: %w", p.addr, err)
}

// runTurns makes the load on several servers, a copy of connload for
// each, which take turns; it writes their lines to out in the order of
// c.addrs and holds the connections until in ends. args are connload's
// arguments, which the copies get too, with their own -addr and -pid.
func runTurns(c config, args []string, in io.Reader, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var copies []*copyOf
	defer func() {
		for _, p := range copies {
			p.in.Close()
			p.cmd.Wait()
		}
	}()
	for i, addr := range c.addrs {
		a := append(args[:len(args):len(args)], "-turn", "-addr", addr, "-pid", "")
		if len(c.pids) > 0 {
			a[len(a)-1] = strconv.Itoa(c.pids[i])
		}
		p := &copyOf{addr: addr, cmd: exec.Command(exe, a...)}
		p.cmd.Stderr = os.Stderr
		if p.in, err = p.cmd.StdinPipe(); err != nil {
			return err
		}
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			return err
		}
		p.lines = bufio.NewScanner(stdout)
		if err := p.cmd.Start(); err != nil {
			return err
		}
		copies = append(copies, p)
		// One set-up at a time: each is timed.
		if err := p.expect("", "ready"); err != nil {
			return err
		}
	}
	turns := int((c.duration + c.block - 1) / c.block)
	for t := range turns {
		for k := range copies {
			if err := copies[(t+k)%len(copies)].expect("go", "done"); err != nil {
				return err
			}
		}
	}
	var lines []string
	for _, p := range copies {
		line, err := p.say("end")
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	if _, err := fmt.Fprintln(out, strings.Join(lines, "\n")); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}
