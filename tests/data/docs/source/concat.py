# Long URLs split into adjacent literals are one string to Python.
DOC = ('See the `Pipeline Definition File Syntax '
       '<http://docs.example.org/datapipeline/latest/DeveloperGuide/'
       'dp-writing-pipeline-definition.html>`__')
JOINED = "https://plus.example/a/" + "b.html"
PAIR = f("https://first.example/", "second")
TEXT = "it's" + 'http://single.example/q'
