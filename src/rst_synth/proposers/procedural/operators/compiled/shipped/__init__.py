"""Code the compiled-program operators ship into tasks: the C sources of the modules a defect step plants."""
