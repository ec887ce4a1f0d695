package changes

// folder is a fold of the changes journal: Stack, Timeline, Records.
type folder interface{ Fold(*Line) error }

// foldBytes decodes b and folds it into f, as the engine does with each
// line it reads.
func foldBytes(f folder, b []byte) error {
	l, err := Decode(b)
	if err != nil {
		return err
	}
	return f.Fold(l)
}
