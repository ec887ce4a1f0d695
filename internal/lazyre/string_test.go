package lazyre

// String is the source text, for the tests to check what New kept.
func (r *Regexp) String() string { return r.expr }
