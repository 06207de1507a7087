/* The C side of the `os` stand-in is empty: its Swift overlay (os.swift) gives `os_log`. */
