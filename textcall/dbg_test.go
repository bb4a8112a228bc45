package textcall

import (
	"fmt"
	"testing"
)

func TestDbgCount(t *testing.T) {
	text := hermesOutput(100<<10, 50)
	p := newTestParser(t, "hermes", nil)
	s := p.NewScanner()
	slow := map[uint8]int{}
	for i := range len(text) {
		c := text[i]
		mode := s.route[c]
		before := s.fast
		s.Feed(text[i : i+1])
		if mode == 0 {
			slow[before]++
		}
	}
	fmt.Println(slow)
}
