package harness

import (
	"errors"
	"fmt"
	"os"

	"github.com/rocksleak/rocksleak/schema"
)

// endError says how a child that ended badly ended: stopped by the guard or
// the no-progress watch, its own error, its exit, its events unreadable, or
// no summary; "" when it ended well.
func endError(run *schema.ModelRun, waitErr, decErr error, tail *TailBuffer) string {
	switch {
	case run.StoppedByGuard != "":
		return run.StoppedByGuard
	case run.StoppedNoProgress != "":
		return run.StoppedNoProgress
	case waitErr != nil && run.Summary != nil && run.Summary.Error != "":
		return run.Summary.Error
	case waitErr != nil:
		return fmt.Sprintf("child process %s%s", DescribeExit(waitErr), LastLines(tail.String()))
	case decErr != nil:
		return fmt.Sprintf("reading the child's events: %v", decErr)
	case run.Summary == nil:
		return "child ended without a summary" + LastLines(tail.String())
	}
	return ""
}

// removeState removes a model's state directory once its child has ended
// (the child removes it first; a killed one cannot) and says what is left:
// "" when it is gone, else its path and why it could not be removed (a state
// disk turned read-only, say).
func removeState(dir string) string {
	err := os.RemoveAll(dir)
	if _, serr := os.Lstat(dir); errors.Is(serr, os.ErrNotExist) {
		return ""
	}
	if err == nil {
		err = errors.New("still there after its removal")
	}
	return fmt.Sprintf("%s: %v", dir, err)
}
