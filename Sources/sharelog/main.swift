print("sharelog")
