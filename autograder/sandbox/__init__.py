"""What student code can see and do: the confinement policy (``policy``), each level
(``bubblewrap``, ``setuid``, ``levels``), resource limits (``limits``), the subreaper, the warm start
(``warm``), the child's process handles (``process``), what the setuid level's child sees and
leaves (``covers``, ``leftovers``) and the assets a sandbox finds ready (``tiktoken_cache``,
``matplotlib_cache``, written through ``cache_folder``). The code that runs inside the sandbox is
``autograder.child``."""
