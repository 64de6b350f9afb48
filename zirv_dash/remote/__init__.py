"""Remote hosts: agents on other machines, reached over the user's own OpenSSH."""
