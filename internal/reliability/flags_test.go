package reliability

import "flag"

var (
	long   = flag.Bool("long", false, "run the long versions: hundreds of kill rounds, every crash point with many partial crashes")
	rounds = flag.Int("rounds", 0, "kill -9 rounds (default 20, 500 with -long)")
)

func killRounds() int {
	switch {
	case *rounds > 0:
		return *rounds
	case *long:
		return 500
	}
	return 20
}
