package cli

import "cairn/cli/hookcmd"

// examples are the command lines each command's help shows, by the
// command's path (the words after "cairn"). Every command has at least
// one: TestEveryCommandHasExample fails for a command without, and parses
// each line with the grammar, so an example cannot name a flag that is
// gone. $S stands for a session id a script took from an earlier answer.
var examples = map[string][]string{
	"run":                {"cairn", "cairn --continue", "cairn -r dependency-audit", "cairn --ephemeral"},
	"resume":             {"cairn resume", "cairn resume --all"},
	"prompt":             {"cairn prompt --new --json 'fix the greeting'", "cairn prompt --session $S --attach shot.png 'why does the button overflow?'"},
	"append":             {"cairn append --session $S --type assistant 'done'", "cairn append --session $S --type tool_call --tool write hello.txt"},
	"sessions":           {"cairn sessions", "cairn sessions --all --json"},
	"show":               {"cairn show $S"},
	"transcript":         {"cairn transcript $S", "cairn transcript --all --json $S"},
	"trail":              {"cairn trail $S", "cairn trail -f $S"},
	"rename":             {"cairn rename $S 'dependency audit'"},
	"history":            {"cairn history", "cairn history --clear"},
	"fork":               {"cairn fork $S", "cairn fork $S --at 3"},
	"revert":             {"cairn revert $S --to 3", "cairn revert $S --to 3 --files", "cairn revert $S --to 3 --files --apply"},
	"unrevert":           {"cairn unrevert $S"},
	"compact":            {"cairn compact $S"},
	"output show":        {"cairn output $S out-1", "cairn output $S out-1 --search 'FAIL'"},
	"output put":         {"cairn output put --json --session $S --producer write"},
	"attachment":         {"cairn attachment $S 2 > shot.png", "cairn attachment --list $S 2"},
	"task":               {"cairn task $S implement-footer-chips", "cairn task $S implement-footer-chips --cancel"},
	"tasks":              {"cairn tasks $S"},
	"task-control":       {"cairn task-control list --json", "cairn task-control status --session $S --task exec-1", "cairn task-control cancel --task exec-1"},
	"message":            {"cairn message $S 'the tests pass on main now'", "cairn message --queue $S 'look at the CI log when you resume'"},
	"host":               {"cairn host /srv/work/app", "cairn host --new-generation /srv/work/app"},
	"remote add":         {"cairn remote add team 's3://cairn-sessions/alice?region=eu-west-1'", "cairn remote add shared file:///mnt/shared/cairn"},
	"remote remove":      {"cairn remote remove team"},
	"remote list":        {"cairn remote list", "cairn remote list --json"},
	"sync":               {"cairn sync", "cairn sync team --json", "cairn sync --watch"},
	"shells":             {"cairn shells $S", "cairn shells $S exec-1"},
	"turn":               {"cairn turn --session $S --model m-1 --input-tokens 1200 --output-tokens 300 --cost-usd 0.0125"},
	"where":              {"cairn where", "cairn where --json"},
	"tool write":         {"echo hello | cairn tool --session $S write hello.txt"},
	"tool edit":          {"cairn tool --session $S edit hello.txt hello 'hello, world'", "cairn tool edit --all hello.txt l L"},
	"tool rm":            {"cairn tool rm hello.txt"},
	"tool exec":          {"cairn tool exec -- make test", "cairn tool exec --json -- 'sed -i s/hi/hello/ hello.txt'"},
	"tool patch":         {"git diff | cairn tool patch", "cairn tool patch fix.patch"},
	"undo":               {"cairn undo", "cairn undo --session $S --json"},
	"redo":               {"cairn redo"},
	"snapshots":          {"cairn snapshots", "cairn snapshots --session $S --json"},
	"snapshots restore":  {"cairn snapshots restore 2"},
	"diff":               {"cairn diff $S", "cairn diff $S 3 --stat"},
	"storage fsck":       {"cairn storage fsck"},
	"storage usage":      {"cairn storage usage", "cairn storage usage --json"},
	"storage stats":      {"cairn storage stats"},
	"storage snapshots":  {"cairn storage snapshots", "cairn storage snapshots --session $S"},
	"storage adopt":      {"cairn storage adopt"},
	"storage trim":       {"cairn storage trim --dry-run", "cairn storage trim --keep-last 20 --keep-within 90d"},
	"storage forget":     {"cairn storage forget --dry-run --keep-within 2y"},
	"storage sessions":   {"cairn storage sessions"},
	"storage pin":        {"cairn storage pin $S"},
	"storage unpin":      {"cairn storage unpin $S"},
	"storage restore":    {"cairn storage restore $S"},
	"storage prune":      {"cairn storage prune"},
	"import claude-code": {"cairn import claude-code --dry-run", "cairn import claude-code"},
	"import codex":       {"cairn import codex ~/old-laptop/.codex --json"},
	"hook install":       {"cairn hook install claude-code", "cairn hook install codex", "cairn hook install claude-code --user"},
	"hook uninstall":     {"cairn hook uninstall claude-code"},
	"hook claude-code":   {"cairn hook claude-code < event.json"},
	"hook codex":         {"cairn hook codex < event.json"},
	"mcp":                {"claude mcp add --transport stdio cairn -- cairn mcp", "cairn mcp --session $S"},
	"migrate-sessions":   {"cairn migrate-sessions /old/path/of/proj ~/src/proj", "cairn migrate-sessions --yes --no-usage /old/proj ~/src/proj"},
	"serve":              {"cairn serve --addr 127.0.0.1:7433"},
	"pair":               {"cairn pair --sessions $S --scope attach"},
	"completion":         {`eval "$(cairn completion bash)"`},
	"help":               {"cairn help", "cairn help agents", "cairn help storage trim"},
	"man":                {"cairn man > cairn.1 && man ./cairn.1"},
}

// examplesOf are the examples of the command at path (cmdbase.CommandPath):
// the hook command's are its package's (hookcmd.Examples).
func examplesOf(path string) []string {
	if lines, ok := examples[path]; ok {
		return lines
	}
	return hookcmd.Examples[path]
}
