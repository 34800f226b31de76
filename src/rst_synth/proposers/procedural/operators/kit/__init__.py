"""What the operators of every domain share: the CSV shape of a workflow step, column roles, where a step may
write, names."""
