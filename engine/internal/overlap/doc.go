// Package overlap attributes the changes of tool calls that run at the
// same time. An agent runs tool calls in parallel (Claude Code's parallel
// tool use, Codex's parallel shell calls): their pre- and post-tool hooks
// interleave, and each call's record, made by comparing its scope before
// and after it, holds what the others changed meanwhile. Two such records
// of one file do not meet (the second's "before" is not the first's
// "after"), so file revert, which refuses a file whose records do not
// meet, could never revert them.
//
// # Units
//
// A change seen while calls overlap belongs to the overlap. A call that
// begins while another call runs whose scope meets its own (Scope.
// Intersects: either is the whole workspace, or a path of one is a path of
// the other or under it) joins that call's unit (Join); so does a call
// that meets any call of a unit still running, ended or not, and a call
// that meets several joins them into one unit. A call whose scope meets
// no running call's keeps its own record: calls whose scopes are disjoint
// literal paths run side by side without a unit, as their records cannot
// hold each other's changes.
//
// A unit ends when its last running call ends (Last). Then the unit's net
// change is worked out (Net): every file any of its calls covers, from
// what it held when the first call covering it began (that call's walk,
// or a file tool's pre-image) to what it holds now (a walk of the unit's
// scopes at its end). Those are the only two moments whose state is
// known: in between, any change to a file it covers was made while some
// call covering it ran (a call changes only files its scope covers), and
// so belongs to the unit; an earlier state would hold a change a call of
// the unit made, a later one a change made after it.
//
// A whole-workspace call covers the files its walk sees, which leaves out
// ignored ones; a call that names a path covers it, ignored or not. So a
// call naming paths that joins a unit after a whole-workspace call notes
// which of its files a whole-workspace walk covers as it begins
// (Member.Seen): a whole-workspace call that began before it saw such a
// file absent if its walk does not hold it (made meanwhile), while an
// ignored file is the later call's to say.
//
// # What revert does with a unit
//
// The unit's net change is one line of the changes journal, after its
// last call's own lines (engine/internal/changes: the overlap line). File
// revert reads the unit as one step there, and the calls' own lines as
// nothing: a revert to a point before the unit reverts the whole unit, a
// revert to a point after it none of it, and a point among its calls is
// refused for the files they cover (what a file held there, while they
// ran, is not recorded). A step among the unit's lines that is none of
// its calls (an undo run while they ran) and touches its files is refused
// too. The undo stack still reads each file tool's own change line: undo
// of one of the unit's file-tool calls puts back that call's own
// pre-images.
//
// # The markers' unit fields
//
// The pending markers (the engine's hook.go and hook_exec.go) carry the
// unit a call belongs to, part of the format:
//
//	{..., "unit":UID, "seq":N, "seen":[P...], "ended":BOOL, "rec":SNAP}
//
// "unit" names the unit ("" or absent: the call is alone), "seq" its place
// in the order the unit's calls began, "seen" the files it held that a
// whole-workspace walk covered when it began (Member.Seen). "ended": the
// call ended and its own line is written ("rec" names a file edit's change
// line; an exec marker's "id" names its record), but its unit has a call
// still running, so its marker stays, with its walk or pre-images, for the
// unit's end. A call of the engine's own process (a file tool, an exec
// line, a recorded call) that runs while a pending call whose scope meets
// its own waits for its post-tool hook joins that unit once it ended, with
// a marker named by its record's id. When the last running call of a unit
// ends, its process walks what the unit covers and writes the overlap line
// after its own lines, then removes the unit's markers.
//
// # Rules
//
// It holds no locks and knows no session: Markers reads and writes the
// calls' pending markers (markers.go) over the folder and decoder the
// caller (engine: overlap.go) gives it, under the session's ownership;
// the caller walks at a unit's end and writes its line. It imports
// engine/internal/changes, fstate, scope and internal/vfs.
package overlap
