"""The repository a dashboard works in: git diffs, branches, worktrees, knowledge records."""
