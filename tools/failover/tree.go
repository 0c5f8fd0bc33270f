package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tree returns pid and every process descended from it, parents before children. PostgreSQL
// backends put themselves in process groups of their own, so signalling the keeper's group
// does not reach them: freezing or killing a whole node takes its tree.
func tree(pid int) []int {
	children := map[int][]int{}
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		raw, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		parent, _ := strconv.Atoi(fields[1])
		children[parent] = append(children[parent], child)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// signalTree sends sig to pid's group and to every process of its tree, and returns the tree.
func signalTree(pid int, sig syscall.Signal) []int {
	_ = syscall.Kill(-pid, sig)
	t := tree(pid)
	for _, p := range t {
		_ = syscall.Kill(p, sig)
	}
	return t
}
