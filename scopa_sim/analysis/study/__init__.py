"""The embedded study: its plan (runs and effects at each scale), running it, and its reports."""
