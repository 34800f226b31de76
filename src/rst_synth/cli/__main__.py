from rst_synth.cli.main import app

app(prog_name="rst")
