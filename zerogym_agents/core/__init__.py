"""What every layer above stands on: settings declared once (config_io), argument and file checks,
atomic checkpoint files, devices and the project's shared constants. Imports nothing above it."""
