#!/bin/sh
# A whole session driven by a shell script through plumbing only, checked
# with jq, as a user's script would: a prompt, reasoning, a tool call, the
# tool's write, its stored output, the result, an answer and the end of the
# turn; then the trail, the usage ledger and the transcript.
#
# whole_session.txtar runs it (cairn and jq on PATH, CAIRN_HOME set, in an
# empty folder). By hand, from an empty folder:
#
#	CAIRN_HOME=$(mktemp -d) sh path/to/whole_session.sh
set -eu

fail() {
	echo "whole_session.sh: $*" >&2
	exit 1
}

# holds JSON FILTER: fails unless jq finds FILTER true of JSON.
holds() {
	printf '%s\n' "$1" | jq -e "$2" >/dev/null || fail "not true: $2
of: $1"
}

S=$(cairn prompt --new --json 'fix the greeting' | jq -r .session)
cairn append --session "$S" --type reasoning 'hello.txt says hi; make it hello' >/dev/null
CALL=$(cairn append --json --session "$S" --type tool_call --tool write hello.txt | jq -r .item)

# The tool writes the file (snapshotted) and its output is stored.
WROTE=$(printf 'hello\n' | cairn tool --json --session "$S" write hello.txt)
holds "$WROTE" '(.snapshot | length > 0) and (.files | length == 1)'
[ "$(cat hello.txt)" = hello ] || fail "hello.txt holds $(cat hello.txt)"
OUT=$(printf 'wrote 6 bytes\n' | cairn output put --json --session "$S" --producer write | jq -r .output)
[ "$OUT" = output-write ] || fail "output id $OUT"
cairn append --session "$S" --type tool_result --call "$CALL" --output "$OUT" "wrote hello.txt" >/dev/null
cairn append --session "$S" --type assistant 'hello.txt now says hello' >/dev/null

# No turn has ended yet: no trail, no spend.
[ -z "$(cairn trail "$S")" ] || fail "a trail line before the first turn"
holds "$(cairn storage usage --json)" '. == []'

# The turn ends with its model, spend, plan and labels.
echo '{"steps":["read hello.txt","write hello.txt"]}' >plan.json
TURN=$(cairn turn --json --session "$S" --model m-1 --input-tokens 1200 --output-tokens 300 \
	--cost-usd 0.0125 --plan plan.json --label prompt --label tool:write)
holds "$TURN" ".session == \"$S\" and .turn == 1"
# A second turn, that spent nothing.
holds "$(cairn turn --json --session "$S" --label review)" '.turn == 2'

# The trail: one line a turn, the items so far and the labels, no content.
TRAIL=$(cairn trail "$S" | jq -s .)
holds "$TRAIL" 'length == 2 and all(.[]; .kind == "turn")'
holds "$TRAIL" ".[0] | .turn == 1 and .items == 5 and .labels == [\"prompt\", \"tool:write\"] and .session == \"$S\""
holds "$TRAIL" '.[1] | .turn == 2 and .labels == ["review"]'
if cairn trail "$S" | grep -q 'hello.txt'; then
	fail "the trail holds content"
fi

# The usage ledger: the one turn that spent, under this folder and model.
USAGE=$(cairn storage usage --json)
holds "$USAGE" 'length == 1 and (.[0] | .model == "m-1" and .turns == 1 and .input_tokens == 1200 and .output_tokens == 300 and .cost_usd == 0.0125)'
holds "$USAGE" ".[0].path == \"$(pwd -P)\""

# The transcript, oldest first, the result tied to its call.
TR=$(cairn transcript --json "$S")
holds "$TR" '[.[].type] == ["user", "reasoning", "tool_call", "tool_result", "assistant"]'
holds "$TR" ".[2] | .id == \"$CALL\" and .tool == \"write\""
holds "$TR" ".[3] | .call == \"$CALL\" and .text == \"wrote hello.txt\" and .outputs == [\"output-write\"]"
holds "$TR" '.[4].text == "hello.txt now says hello"'

# The record: two turns, the plan as given, the first turn's spend.
SHOW=$(cairn show --json "$S")
holds "$SHOW" '.counts.items == 5 and .counts.turns == 2 and .plan.steps == ["read hello.txt", "write hello.txt"]'
holds "$SHOW" '.spend.cost_usd == 0.0125'

# The stored output reads back, and the write is a snapshot.
holds "$(cairn output --json "$S" "$OUT")" '.text == "wrote 6 bytes\n"'
holds "$(cairn snapshots --json --session "$S")" '[.snapshots[] | select(.tool == "write")] | length == 1'
echo "whole session: ok"
