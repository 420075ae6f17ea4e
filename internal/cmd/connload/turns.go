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
	addr   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.Closer
	lines  *bufio.Scanner
	stderr strings.Builder // why it failed
}

// start starts a copy of connload, exe, for one server: addr, whose
// process is pid (0: not measured).
func start(exe string, c config, addr string, pid int) (*copyOf, error) {
	p := &copyOf{addr: addr, cmd: exec.Command(exe, c.copyArgs(addr, pid)...)}
	p.cmd.Stderr = &p.stderr
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout = inR, outW
	err = p.cmd.Start()
	inR.Close() // the copy's ends
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.in, p.out, p.lines = inW, outR, bufio.NewScanner(outR)
	return p, nil
}

// copyArgs are the arguments of c's copy for one server.
func (c config) copyArgs(addr string, pid int) []string {
	a := []string{"-turn", "-addr", addr, "-conns", strconv.Itoa(c.conns), "-active", strconv.Itoa(c.active),
		"-duration", c.duration.String(), "-block", c.block.String(), "-size", strconv.Itoa(c.size),
		"-parallel", strconv.Itoa(c.parallel)}
	if pid != 0 {
		a = append(a, "-pid", strconv.Itoa(pid))
	}
	return a
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

// failed is the error of a copy that stopped answering: its exit status
// and what it wrote on its standard error.
func (p *copyOf) failed(err error) error {
	p.close()
	if werr := p.cmd.Wait(); werr != nil {
		err = werr
	}
	if why := strings.TrimSpace(p.stderr.String()); why != "" {
		err = fmt.Errorf("%w: %s", err, why)
	}
	return fmt.Errorf("the load on %s: %w", p.addr, err)
}

// close ends the copy's input, on which it ends, and closes its output.
func (p *copyOf) close() {
	p.in.Close()
	p.out.Close()
}

// runTurns makes the load on several servers, a copy of connload for
// each, which take turns; it writes their lines to out in the order of
// c.addrs and holds the connections until in ends.
func runTurns(c config, in io.Reader, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var copies []*copyOf
	defer func() {
		for _, p := range copies {
			p.close()
			p.cmd.Wait()
		}
	}()
	for i, addr := range c.addrs {
		pid := 0
		if len(c.pids) > 0 {
			pid = c.pids[i]
		}
		p, err := start(exe, c, addr, pid)
		if err != nil {
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
