package ids

import (
	"math/rand/v2"
	"strings"
	"sync"
)

// WordID is a random word-list name, adjective-adjective-animal
// ("neat-wanted-cowbird"), made unique with Unique. The two adjectives
// differ. r picks the words; nil means a source seeded by the runtime.
func WordID(r *rand.Rand, taken func(string) bool) string {
	pick := rand.IntN
	if r != nil {
		pick = r.IntN
	}
	adjectives, animals := adjectives(), animals()
	a := pick(len(adjectives))
	b := pick(len(adjectives) - 1)
	if b >= a {
		b++
	}
	id := adjectives[a] + "-" + adjectives[b] + "-" + animals[pick(len(animals))]
	return Unique(id, taken)
}

// The word lists. Every word is lowercase ASCII letters only, at most 12 of
// them, so a word id is at most 38 characters before a suffix. They are
// split on first use, not at init (as the shell labels' table).
var (
	adjectives = sync.OnceValue(func() []string { return strings.Fields(adjectiveWords) })
	animals    = sync.OnceValue(func() []string { return strings.Fields(animalWords) })
)

const (
	adjectiveWords = `
able agile airy alert amber ample apt arched ardent azure
balmy bold brave breezy brief bright brisk bronze bubbly busy
calm candid careful casual cheery chief chilly civic clean clear
clever cosy crisp cubic curly curious cozy dapper daring dear
decent deep deft dense direct distant dizzy dreamy dusty eager
early earnest easy elated elegant eleven endless epic equal even
exact fabled fair faithful famous fancy fast fearless festive fine
firm fit fleet fluent fluffy flying fond frank free fresh
friendly frosty frugal funny fuzzy gentle giant gifted glad gleaming
glossy golden good graceful grand grateful great green grounded growing
handy happy hardy hazy healthy hearty helpful hidden honest hopeful
humble hushed icy ideal jolly jovial joyful keen kind known
large lasting late lavish leafy light likely lively local lofty
loyal lucid lucky lunar magic major mellow merry mighty mild
minty misty modern modest moral mossy muted narrow native neat
nimble noble nordic novel oaken open orange orderly patient peaceful
perky plain playful plucky polite polished proper proud quaint quick
quiet radiant rapid rare ready regal relaxed rich robust rosy
round royal ruby rugged rustic safe sandy savvy scenic secret
serene sharp shiny silent silky silver simple sincere sleek smart
smooth snowy snug social solar solid sound spare sparkly speedy
spicy spry stable steady stellar still stoic strong sturdy sublime
sunny super sure swift tender thankful tidy timely tiny tireless
topaz tough tranquil tropical true trusty tuned upbeat urban useful
valiant vast velvet verdant vivid wanted warm wary whole wild
willing windy wise witty wooden worthy young zany zealous zesty
`
	animalWords = `
aardvark albatross alpaca anchovy anole antelope armadillo auk avocet axolotl
baboon badger barracuda bat beagle bear beaver bee beetle binturong
bison bittern blackbird bluebird bobcat bonobo booby buffalo bullfrog bunting
butterfly buzzard caiman camel capybara caracal cardinal caribou carp cassowary
cat catfish chameleon cheetah chickadee chinchilla chipmunk cicada civet clam
coati cobra cockatoo cod condor coral cormorant cougar cowbird coyote
crab crane crayfish cricket crow cuckoo curlew dingo dolphin donkey
dormouse dove dragonfly duck dugong dunlin eagle earwig egret eland
elephant elk emu falcon ferret finch firefly flamingo flounder fox
frog gazelle gecko gerbil gibbon giraffe gnu goat goldfinch goose
gopher gorilla grackle grebe grouse guppy gull hamster hare harrier
hawk hedgehog heron herring hippo hornet horse hummingbird ibex ibis
iguana impala jackal jaguar jay jellyfish kangaroo katydid kestrel kingfisher
kite kiwi koala koi kookaburra krill ladybug lark lemming lemur
leopard limpet lion lizard llama lobster loon lynx macaw magpie
mallard manatee mandrill marlin marmot marten meerkat merlin mink minnow
mole mongoose moose moth mouse mule narwhal newt nighthawk nightjar
ocelot octopus okapi opossum orca oriole oryx osprey ostrich otter
owl ox oyster panda pangolin panther parrot partridge peacock pelican
penguin petrel pheasant pika pike plover porcupine porpoise possum puffin
puma python quail quokka rabbit raccoon rail raven redstart reindeer
rhino robin salamander salmon sandpiper sardine scorpion seahorse seal shark
sheep shrew shrimp skink skunk sloth snail snipe sparrow spider
squid squirrel starling stingray stork sturgeon swallow swan swift tapir
tarsier termite tern thrush tiger toad tortoise toucan trout tuna
turkey turtle viper vole vulture wallaby walrus warbler wasp weasel
whale wildcat wolf wombat woodcock wren yak zebra
`
)
