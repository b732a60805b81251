"""What student code can see and do: the confinement policy (``policy``), each level
(``bubblewrap``, ``setuid``, ``levels``), resource limits (``limits``), the subreaper, the warm start
(``warm``), the child's process handles (``process``) and the assets a sandbox finds ready
(``tiktoken_cache``, ``matplotlib_cache``). The code that runs inside the sandbox is ``autograder.child``."""
