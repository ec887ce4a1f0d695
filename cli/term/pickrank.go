package term

import (
	"slices"
	"strings"
	"unicode"

	"github.com/sahilm/fuzzy"
)

// How a filter ranks the rows it matches, best first. A row's title is
// compared with the filter's words as typed (case and repeated spaces aside);
// its id only by prefix, so that a filter of a few letters or digits never
// matches a row through the middle of a 36-character id.
const (
	rankExact      = iota // the title is the filter, or the id is
	rankPrefix            // the title starts with the filter, or the id does
	rankWords             // every word of the filter is a word of the title, in order
	rankWordStarts        // every word of the filter starts a word of the title, in order, or the title holds the filter
	rankFuzzy             // the filter's letters are in the title in order (spaces ignored)
)

// matchRows returns the indexes of the rows that match q, best first (see
// the rank constants); rows of one rank keep their order, but fuzzy matches,
// which go by the fuzzy score. An empty q matches every row, in order.
func matchRows(rows []Row, q string) []int {
	m := make([]int, 0, len(rows))
	qn := normalize(q)
	if qn == "" {
		for i := range rows {
			m = append(m, i)
		}
		return m
	}
	qw := words(qn)
	type hit struct{ i, rank, score int }
	var hits []hit
	var rest []int // rows left for the fuzzy rank
	for i, r := range rows {
		if rank, ok := rankRow(r, qn, qw); ok {
			hits = append(hits, hit{i, rank, 0})
			continue
		}
		rest = append(rest, i)
	}
	// Fuzzy, over the titles only; the filter's spaces only separate what
	// was remembered of the words ("dep aud" finds "dependency-audit").
	if pattern := strings.Join(strings.Fields(qn), ""); pattern != "" {
		for _, f := range fuzzy.FindFromNoSort(pattern, titleSource{rows, rest}) {
			hits = append(hits, hit{rest[f.Index], rankFuzzy, f.Score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.rank == rankFuzzy && a.score != b.score {
			return b.score - a.score
		}
		return a.i - b.i
	})
	for _, h := range hits {
		m = append(m, h.i)
	}
	return m
}

// rankRow ranks row r against the normalized filter qn (words qw); ok is
// false when only a fuzzy match is left to try.
func rankRow(r Row, qn string, qw []string) (int, bool) {
	title := normalize(r.Title)
	id := strings.ToLower(r.ID)
	oneWord := !strings.Contains(qn, " ")
	switch {
	case title == qn || id == qn:
		return rankExact, true
	case strings.HasPrefix(title, qn) || oneWord && id != "" && strings.HasPrefix(id, qn):
		return rankPrefix, true
	}
	tw := words(title)
	if len(qw) == 0 {
		// A filter of punctuation only: what the title holds.
		if strings.Contains(title, qn) {
			return rankWordStarts, true
		}
		return 0, false
	}
	switch {
	case inOrder(qw, tw, func(t, q string) bool { return t == q }):
		return rankWords, true
	case inOrder(qw, tw, strings.HasPrefix) || strings.Contains(title, qn):
		return rankWordStarts, true
	}
	return 0, false
}

// inOrder reports whether each word of q matches a word of t of its own
// (match(the word of t, the word of q)), in order.
func inOrder(q, t []string, match func(t, q string) bool) bool {
	j := 0
	for _, w := range q {
		for j < len(t) && !match(t[j], w) {
			j++
		}
		if j == len(t) {
			return false
		}
		j++
	}
	return true
}

// normalize is s as a filter compares it: lower case, its spaces one each.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// words are the runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// titleSource is what the fuzzy rank matches: the titles of rows[only].
type titleSource struct {
	rows []Row
	only []int
}

func (s titleSource) String(i int) string { return strings.ToLower(s.rows[s.only[i]].Title) }
func (s titleSource) Len() int            { return len(s.only) }
