# From a clone of the repository; standard library only, nothing to install.
python -m calculator --preset bert-base-uncased
python -m calculator --preset bert-base-uncased --architecture BertForMaskedLM --format markdown
python -m calculator --config config.json --format json   # any Hugging Face config.json
