package term

import "slices"

// forkTree orders rows (newest first) as a tree: each fork right under the
// session it was forked from (Row.ForkOf), a level deeper. A tree comes
// where its newest session would come, so the top rows still hold the
// newest work; the forks of one session are newest first, each followed
// by its own forks. A fork whose parent is not listed is a tree of its
// own. order holds row indexes; depth is each row's level, by row index.
func forkTree(rows []Row) (order, depth []int) {
	depth = make([]int, len(rows))
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		if r.ID != "" {
			at[r.ID] = i
		}
	}
	children := map[int][]int{}
	var roots []int
	for i, r := range rows {
		p, ok := at[r.ForkOf]
		if r.ForkOf == "" || !ok || p == i {
			roots = append(roots, i)
			continue
		}
		children[p] = append(children[p], i)
	}
	if len(children) == 0 {
		order = make([]int, len(rows))
		for i := range order {
			order[i] = i
		}
		return order, depth
	}
	// newest is the smallest row index in the tree under i.
	newest := make([]int, len(rows))
	var walk func(i int, seen map[int]bool) int
	walk = func(i int, seen map[int]bool) int {
		seen[i] = true
		n := i
		for _, c := range children[i] {
			if !seen[c] {
				n = min(n, walk(c, seen))
			}
		}
		newest[i] = n
		return n
	}
	seen := map[int]bool{}
	for _, r := range roots {
		walk(r, seen)
	}
	// Rows in a loop of forks (records that name each other) are reached
	// from no root: each of them is a root.
	for i := range rows {
		if !seen[i] {
			roots = append(roots, i)
			walk(i, seen)
		}
	}
	byNewest := func(a, b int) int { return newest[a] - newest[b] }
	slices.SortStableFunc(roots, byNewest)
	order = make([]int, 0, len(rows))
	placed := make([]bool, len(rows))
	var emit func(i, d int)
	emit = func(i, d int) {
		if placed[i] {
			return
		}
		placed[i] = true
		order = append(order, i)
		depth[i] = d
		kids := slices.Clone(children[i])
		slices.SortStableFunc(kids, byNewest)
		for _, c := range kids {
			emit(c, d+1)
		}
	}
	for _, r := range roots {
		emit(r, 0)
	}
	return order, depth
}
